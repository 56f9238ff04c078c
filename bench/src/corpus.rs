//! The deterministic corpus: a memory store that looks like one a coding agent
//! keeps for a busy project. The same size and seed always give the same
//! bytes, on every machine (integer arithmetic only, no hash-map iteration).
//!
//! Layout (see the SPEC): `MEMORY.md` (an index under 200 lines), the
//! project's `SCRATCHPAD.md` with open and closed items, daily logs ending
//! today (a quarter for S, a year for M and L; weekends mostly empty) and
//! enough notes to reach the size's file count and byte budget.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use agent_memory_core::names::project_slug;
use agent_memory_core::time::Date;
use anyhow::{Context as _, Result, bail};

use crate::rng::Rng;
use crate::words::{
    ADJECTIVES, COMMANDS, DIRS, EXTENSIONS, FILLER, NAMES, NON_ASCII, NOUNS, PEOPLE, TOPICS, VERBS,
};

/// Bumped whenever the generator's output changes, so stale corpora are
/// regenerated.
pub const GENERATOR_VERSION: u32 = 2;
/// The project every corpus belongs to (only hashed into the slug).
pub const PROJECT: &str = "/bench/src/kestrel-api";
/// "Now" for every corpus and every measurement: the last day of the logs.
pub const NOW: &str = "2026-05-30T18:00:00+00:00";
/// Today's date, as in [`NOW`].
pub const TODAY: (i32, u32, u32) = (2026, 5, 30);
/// The manifest at the corpus root (a dot file: never part of the store).
pub const MANIFEST: &str = ".bench-corpus";
/// The default seed.
pub const DEFAULT_SEED: u64 = 42;
/// The words a dense corpus sprinkles through its text (every word of the
/// benchmark's queries, some inflected as people write them), so that most
/// query words occur in most files: the case where a many-word query has
/// the most candidates, postings and re-reads.
pub const DENSE_WORDS: &[&str] = &[
    "deploy",
    "deployed",
    "staging",
    "timeout",
    "timeouts",
    "migration",
    "cache",
    "cached",
    "token",
    "flaky",
    "rollback",
];
/// Percent of a dense corpus's running-text words taken from
/// [`DENSE_WORDS`]: about one word in a hundred is each query word, so a
/// 200-word daily log holds a given one with odds of about 85%, a note
/// nearly surely.
const DENSE_PERCENT: usize = 8;

/// The corpus sizes of the issue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Size {
    /// ~100 files, ~1 MB.
    S,
    /// ~2,000 files, ~20 MB.
    M,
    /// ~10,000 files, ~200 MB.
    L,
}

impl Size {
    /// `S`, `M` or `L`.
    pub fn name(self) -> &'static str {
        match self {
            Size::S => "S",
            Size::M => "M",
            Size::L => "L",
        }
    }

    fn spec(self) -> Spec {
        match self {
            Size::S => Spec {
                files: 100,
                bytes: 1_000_000,
                days: 91,
            },
            Size::M => Spec {
                files: 2_000,
                bytes: 20_000_000,
                days: 365,
            },
            Size::L => Spec {
                files: 10_000,
                bytes: 200_000_000,
                days: 365,
            },
        }
    }
}

impl std::str::FromStr for Size {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim() {
            "S" | "s" => Ok(Size::S),
            "M" | "m" => Ok(Size::M),
            "L" | "l" => Ok(Size::L),
            other => Err(format!("unknown size {other:?}: expected S, M or L")),
        }
    }
}

struct Spec {
    /// Files in the store, all kinds together.
    files: usize,
    /// Bytes in the store, all files together.
    bytes: u64,
    /// Days of logs, ending today.
    days: u32,
}

/// What a generated corpus holds; written to [`MANIFEST`] at its root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Manifest {
    /// [`GENERATOR_VERSION`] of the generator that wrote it.
    pub version: u32,
    /// The size asked for.
    pub size: Size,
    /// The seed.
    pub seed: u64,
    /// The project path.
    pub project: String,
    /// The pinned "now".
    pub now: String,
    /// Files in the store.
    pub files: usize,
    /// Bytes in the store.
    pub bytes: u64,
    /// Daily logs among the files.
    pub daily: usize,
    /// Notes among the files.
    pub notes: usize,
    /// The dense variant ([`DENSE_WORDS`] sprinkled through the text).
    pub dense: bool,
}

impl Manifest {
    /// The project slug (`projects/<slug>` holds the scratchpad, logs, notes).
    pub fn slug(&self) -> String {
        project_slug(&self.project)
    }

    fn to_text(&self) -> String {
        format!(
            "version={}\nsize={}\nseed={}\nproject={}\nnow={}\nfiles={}\nbytes={}\ndaily={}\nnotes={}\ndense={}\n",
            self.version,
            self.size.name(),
            self.seed,
            self.project,
            self.now,
            self.files,
            self.bytes,
            self.daily,
            self.notes,
            u8::from(self.dense)
        )
    }

    /// The manifest of the corpus at `root`, if there is a readable one.
    pub fn read(root: &Path) -> Option<Manifest> {
        let text = fs::read_to_string(root.join(MANIFEST)).ok()?;
        let get = |key: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(key)?.strip_prefix('='))
                .map(str::to_string)
        };
        Some(Manifest {
            version: get("version")?.parse().ok()?,
            size: get("size")?.parse().ok()?,
            seed: get("seed")?.parse().ok()?,
            project: get("project")?,
            now: get("now")?,
            files: get("files")?.parse().ok()?,
            bytes: get("bytes")?.parse().ok()?,
            daily: get("daily")?.parse().ok()?,
            notes: get("notes")?.parse().ok()?,
            // Manifests from before the dense variant are plain corpora.
            dense: get("dense").is_some_and(|d| d == "1"),
        })
    }

    /// Is this the corpus the current generator makes for `size`, `seed`
    /// and `dense`?
    pub fn is_current(&self, size: Size, seed: u64, dense: bool) -> bool {
        self.version == GENERATOR_VERSION
            && self.size == size
            && self.seed == seed
            && self.dense == dense
    }
}

/// The plain corpus for `size` and `seed` (see [`generate_variant`]).
#[cfg(test)]
fn generate(size: Size, seed: u64, out: &Path) -> Result<Manifest> {
    generate_variant(size, seed, false, out)
}

/// Write the corpus for `size` and `seed` into `out`, replacing a corpus
/// already there; with `dense`, its dense variant: the same generator with
/// [`DENSE_WORDS`] sprinkled through the running text. The plain corpus's
/// bytes do not depend on this (its random stream is untouched). Refuses
/// to touch a non-empty directory that is not a corpus.
///
/// # Errors
/// When `out` is a non-empty directory without a manifest, or on I/O errors.
pub fn generate_variant(size: Size, seed: u64, dense: bool, out: &Path) -> Result<Manifest> {
    if out.exists() {
        let empty = fs::read_dir(out)
            .with_context(|| format!("cannot list `{}`", out.display()))?
            .next()
            .is_none();
        if !empty && !out.join(MANIFEST).exists() {
            bail!(
                "`{}` is not empty and holds no {MANIFEST}: refusing to replace it with a corpus",
                out.display()
            );
        }
        fs::remove_dir_all(out)
            .with_context(|| format!("cannot remove the old corpus `{}`", out.display()))?;
    }
    let spec = size.spec();
    let slug = project_slug(PROJECT);
    let project_dir = out.join("projects").join(&slug);
    let daily_dir = project_dir.join("daily");
    let notes_dir = project_dir.join("notes");
    for dir in [&daily_dir, &notes_dir] {
        fs::create_dir_all(dir).with_context(|| format!("cannot create `{}`", dir.display()))?;
    }
    // One stream per part, so changing one part does not reshuffle the rest.
    let mut rng = Rng::new(seed ^ (size as u64).wrapping_mul(0x0100_0000_01b3));
    let mut text = Text::new(rng.fork());
    text.dense = dense;
    let mut bytes = 0u64;
    let write = |path: &Path, content: &str, bytes: &mut u64| -> Result<()> {
        *bytes += content.len() as u64;
        fs::write(path, content).with_context(|| format!("cannot write `{}`", path.display()))
    };

    // Daily logs first: their count decides how many notes there are.
    let today = Date::new(TODAY.0, TODAY.1, TODAY.2).expect("a real date");
    let mut daily = 0;
    let mut days_rng = rng.fork();
    for back in (0..i64::from(spec.days)).rev() {
        let date = Date::from_days(today.to_days() - back);
        // 1970-01-01 was a Thursday: 0 = Monday.
        let weekday = (date.to_days() + 3).rem_euclid(7);
        let weekend = weekday >= 5;
        let present = back <= 1 || days_rng.percent(if weekend { 25 } else { 92 });
        if !present {
            continue;
        }
        let entries = if weekend {
            1 + days_rng.below(2)
        } else {
            3 + days_rng.below(6)
        };
        let log = text.daily_log(entries);
        write(&daily_dir.join(format!("{date}.md")), &log, &mut bytes)?;
        daily += 1;
    }

    let note_count = spec.files.saturating_sub(daily + 2).max(1);
    let mut names = Vec::with_capacity(note_count);
    let mut topics = Vec::with_capacity(note_count);
    let mut taken = HashSet::new();
    let mut names_rng = rng.fork();
    while names.len() < note_count {
        let topic = pick_topic(&mut names_rng);
        let name = note_name(&mut names_rng, topic, names.len());
        if taken.insert(name.clone()) {
            names.push(name);
            topics.push(topic);
        }
    }

    let indexed: Vec<(String, usize)> = names.iter().cloned().zip(topics.iter().copied()).collect();
    let memory_md = text.memory_index(&slug, &indexed);
    write(&out.join("MEMORY.md"), &memory_md, &mut bytes)?;
    let scratchpad = text.scratchpad();
    write(&project_dir.join("SCRATCHPAD.md"), &scratchpad, &mut bytes)?;

    // Share the rest of the byte budget among the notes, unevenly: most
    // notes are short, a few are long.
    let budget = spec.bytes.saturating_sub(bytes);
    let mut weights_rng = rng.fork();
    let weights: Vec<u64> = (0..note_count)
        .map(|_| 250 + weights_rng.skewed(3000) as u64)
        .collect();
    let total_weight: u64 = weights.iter().sum();
    for ((name, weight), topic) in names.iter().zip(&weights).zip(&topics) {
        let target = (budget as u128 * u128::from(*weight) / u128::from(total_weight)) as usize;
        let note = text.note(name, *topic, target.max(120));
        write(&notes_dir.join(format!("{name}.md")), &note, &mut bytes)?;
    }

    let manifest = Manifest {
        version: GENERATOR_VERSION,
        size,
        seed,
        project: PROJECT.to_string(),
        now: NOW.to_string(),
        files: daily + note_count + 2,
        bytes,
        daily,
        notes: note_count,
        dense,
    };
    fs::write(out.join(MANIFEST), manifest.to_text())
        .with_context(|| format!("cannot write the manifest in `{}`", out.display()))?;
    Ok(manifest)
}

/// A note's file stem: two or three words, lowercase, joined by `-`; the
/// first is usually one of the note's topic's keywords.
fn note_name(rng: &mut Rng, topic: usize, n: usize) -> String {
    let mut name = String::new();
    if rng.percent(30) {
        name.push_str(rng.pick(NAMES));
        name.push('-');
    }
    let keywords = TOPICS[topic];
    if rng.percent(70) {
        name.push_str(keywords[rng.skewed(keywords.len())]);
    } else {
        name.push_str(NOUNS[rng.skewed(NOUNS.len())]);
    }
    name.push('-');
    name.push_str(rng.pick(NOUNS));
    if rng.percent(10) {
        // A few notes carry a number, as people's notes do (`adr-0042`).
        let _ = write!(name, "-{}", n % 1000);
    }
    name
}

/// A topic: popular ones more often, but every one regularly (half the
/// time uniform, half skewed to the front of `TOPICS`).
fn pick_topic(rng: &mut Rng) -> usize {
    if rng.percent(50) {
        rng.below(TOPICS.len())
    } else {
        rng.skewed(TOPICS.len())
    }
}

/// The text generator.
struct Text {
    rng: Rng,
    /// What the text being written is about: indexes into `TOPICS`, the
    /// main topic first.
    topics: Vec<usize>,
    /// Sprinkle [`DENSE_WORDS`] through the running text.
    dense: bool,
}

impl Text {
    fn new(rng: Rng) -> Text {
        Text {
            rng,
            topics: Vec::new(),
            dense: false,
        }
    }

    /// Write about `main` and up to `extra` other topics from now on.
    fn about(&mut self, main: usize, extra: usize) {
        self.topics.clear();
        self.topics.push(main);
        for _ in 0..extra {
            let t = pick_topic(&mut self.rng);
            if !self.topics.contains(&t) {
                self.topics.push(t);
            }
        }
    }

    /// A keyword of the current topics (mostly the main one).
    fn topic_word(&mut self) -> &'static str {
        let topic = if self.topics.len() == 1 || self.rng.percent(75) {
            self.topics[0]
        } else {
            self.topics[1 + self.rng.below(self.topics.len() - 1)]
        };
        let keywords = TOPICS[topic];
        keywords[self.rng.skewed(keywords.len())]
    }

    fn noun(&mut self) -> &'static str {
        NOUNS[self.rng.skewed(NOUNS.len())]
    }

    fn word(&mut self, unicode: bool) -> String {
        // Only the dense variant draws here: the plain corpus's stream, and
        // so its bytes, stay as they were.
        if self.dense && self.rng.percent(DENSE_PERCENT) {
            return self.rng.pick(DENSE_WORDS).to_string();
        }
        let r = &mut self.rng;
        match r.below(100) {
            0..=41 => r.pick(FILLER).to_string(),
            42..=55 => self.topic_word().to_string(),
            56..=66 => self.noun().to_string(),
            67..=76 => VERBS[r.skewed(VERBS.len())].to_string(),
            77..=84 => ADJECTIVES[r.skewed(ADJECTIVES.len())].to_string(),
            85..=88 => r.pick(NAMES).to_string(),
            89..=91 => format!("`{}`", self.path()),
            92..=93 => format!("{} ms", 5 + self.rng.below(2000)),
            94..=95 => format!("#{}", 100 + self.rng.below(9000)),
            96 => format!(
                "v{}.{}.{}",
                self.rng.below(4),
                self.rng.below(20),
                self.rng.below(10)
            ),
            97 if unicode => self.rng.pick(NON_ASCII).to_string(),
            97 => "e.g.".to_string(),
            _ => {
                let (a, b) = (self.topic_word(), self.noun());
                format!("`{a}{}()`", capitalize(b))
            }
        }
    }

    fn path(&mut self) -> String {
        let r = &mut self.rng;
        let mut p = r.pick(DIRS).to_string();
        if r.percent(50) {
            p.push('/');
            p.push_str(r.pick(DIRS));
        }
        let extension = r.pick(EXTENSIONS);
        let (a, b) = (self.topic_word(), self.noun());
        let _ = write!(p, "/{a}_{b}.{extension}");
        p
    }

    fn command(&mut self) -> String {
        let template = self.rng.pick(COMMANDS);
        template.replace("{}", self.rng.pick(NAMES))
    }

    fn sentence(&mut self, unicode: bool) -> String {
        let len = 6 + self.rng.below(13);
        let mut s = String::new();
        for i in 0..len {
            let w = self.word(unicode);
            if i == 0 {
                s.push_str(&capitalize(&w));
            } else {
                s.push(' ');
                s.push_str(&w);
            }
        }
        s.push(if self.rng.percent(8) { ';' } else { '.' });
        s
    }

    fn heading(&mut self) -> String {
        let topic = self.topic_word();
        let r = &mut self.rng;
        match r.below(4) {
            0 => format!(
                "{} {} {topic}",
                capitalize(VERBS[r.skewed(VERBS.len())]),
                ADJECTIVES[r.skewed(ADJECTIVES.len())],
            ),
            1 => format!("{} {}", capitalize(topic), NOUNS[r.skewed(NOUNS.len())]),
            2 => format!(
                "{} {topic} in {}",
                capitalize(ADJECTIVES[r.skewed(ADJECTIVES.len())]),
                r.pick(NAMES)
            ),
            _ => format!("{} {topic}", capitalize(r.pick(NAMES))),
        }
    }

    /// A paragraph of `min` sentences and up to `spread - 1` more,
    /// hard-wrapped near 88 columns or one long line (both are common in
    /// Markdown people write).
    fn paragraph(&mut self, min: usize, spread: usize, unicode: bool) -> String {
        let sentences = min + self.rng.below(spread);
        let wrap = self.rng.percent(50);
        let mut out = String::new();
        let mut col = 0;
        for i in 0..sentences {
            let s = self.sentence(unicode);
            for (j, word) in s.split(' ').enumerate() {
                let first = i == 0 && j == 0;
                if !first {
                    if wrap && col + 1 + word.len() > 88 {
                        out.push('\n');
                        col = 0;
                    } else {
                        out.push(' ');
                        col += 1;
                    }
                }
                out.push_str(word);
                col += word.len();
            }
        }
        out
    }

    fn code_block(&mut self) -> String {
        let mut out = String::from("```sh\n");
        for _ in 0..1 + self.rng.below(4) {
            out.push_str(&self.command());
            out.push('\n');
        }
        out.push_str("```");
        out
    }

    /// One day of log entries in the `append-daily` format.
    fn daily_log(&mut self, entries: usize) -> String {
        let mut out = String::new();
        let mut minute = 8 * 60 + self.rng.below(90);
        for e in 0..entries {
            if e > 0 {
                out.push('\n');
            }
            let topic = pick_topic(&mut self.rng);
            self.about(topic, 0);
            let heading = self.heading();
            let _ = writeln!(out, "### {:02}:{:02} — {heading}", minute / 60, minute % 60);
            let unicode = self.rng.percent(5);
            for _ in 0..1 + self.rng.below(5) {
                let line = match self.rng.below(10) {
                    0..=3 => self.paragraph(1, 3, unicode),
                    4..=6 => format!("- {}", self.sentence(unicode)),
                    7 => format!("Ran `{}`.", self.command()),
                    8 => {
                        let (who, a, b) = (self.rng.pick(PEOPLE), self.topic_word(), self.noun());
                        format!("Paired with {who} on the {a} {b}.")
                    }
                    _ => self.code_block(),
                };
                out.push_str(&line);
                out.push('\n');
            }
            minute = (minute + 20 + self.rng.below(80)).min(23 * 60 + 59);
        }
        out
    }

    /// A note of about `target` bytes: a title, then sections of prose,
    /// lists, code and the odd table.
    fn note(&mut self, name: &str, topic: usize, target: usize) -> String {
        let extra = usize::from(self.rng.percent(40));
        self.about(topic, extra);
        let unicode = self.rng.percent(6);
        let mut out = format!("# {}\n\n", capitalize(&name.replace('-', " ")));
        out.push_str(&self.paragraph(2, 3, unicode));
        out.push('\n');
        while out.len() < target {
            out.push('\n');
            let block = match self.rng.below(12) {
                0..=1 => format!("## {}\n", self.heading()),
                2..=5 => self.paragraph(2, 5, unicode),
                6..=8 => {
                    let mut list = String::new();
                    for i in 0..2 + self.rng.below(6) {
                        if i > 0 {
                            list.push('\n');
                        }
                        list.push_str("- ");
                        list.push_str(&self.sentence(unicode));
                    }
                    list
                }
                9..=10 => self.code_block(),
                _ => {
                    let mut table = String::from("| what | where | notes |\n|---|---|---|");
                    for _ in 0..2 + self.rng.below(5) {
                        let (what, path) = (self.topic_word(), self.path());
                        let _ = write!(
                            table,
                            "\n| {what} | `{path}` | {} |",
                            self.sentence(unicode).trim_end_matches(['.', ';'])
                        );
                    }
                    table
                }
            };
            out.push_str(&block);
            out.push('\n');
        }
        out
    }

    /// `MEMORY.md`: preferences, facts and links to notes; under 200 lines.
    fn memory_index(&mut self, slug: &str, notes: &[(String, usize)]) -> String {
        let mut out = String::from(
            "# Memory\n\nAn index: one line a fact, details in the notes it links to.\n\n## Preferences\n",
        );
        for _ in 0..12 {
            let topic = pick_topic(&mut self.rng);
            self.about(topic, 0);
            let _ = writeln!(out, "- {}", self.sentence(false));
        }
        out.push_str("\n## Facts\n");
        for _ in 0..25 {
            let topic = pick_topic(&mut self.rng);
            self.about(topic, 0);
            let _ = writeln!(out, "- {}", self.sentence(false));
        }
        out.push_str("\n## Notes\n");
        for (name, topic) in notes.iter().take(120) {
            self.about(*topic, 0);
            let summary = self.sentence(false);
            let _ = writeln!(
                out,
                "- [{}](projects/{slug}/notes/{name}.md) — {summary}",
                name.replace('-', " ")
            );
        }
        out
    }

    /// The project's checklist: open and closed items, both bullet styles,
    /// some with indented detail.
    fn scratchpad(&mut self) -> String {
        let mut out = String::from("# Scratchpad\n");
        for section in ["Now", "Next", "Done"] {
            let _ = write!(out, "\n## {section}\n");
            for _ in 0..12 + self.rng.below(10) {
                let done = if section == "Done" {
                    !self.rng.percent(5)
                } else {
                    self.rng.percent(35)
                };
                let topic = pick_topic(&mut self.rng);
                self.about(topic, 0);
                let bullet = if self.rng.percent(20) { '*' } else { '-' };
                let mark = if done { 'x' } else { ' ' };
                let item = self.heading();
                let _ = writeln!(out, "{bullet} [{mark}] {item}: {}", self.sentence(false));
                if self.rng.percent(20) {
                    let _ = writeln!(out, "  - {}", self.sentence(false));
                }
            }
        }
        out
    }
}

fn capitalize(word: &str) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(root: &Path) -> Vec<(String, Vec<u8>)> {
        let mut out = Vec::new();
        let mut stack = vec![root.to_path_buf()];
        while let Some(dir) = stack.pop() {
            for entry in fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                } else {
                    let rel = path.strip_prefix(root).unwrap().display().to_string();
                    out.push((rel, fs::read(&path).unwrap()));
                }
            }
        }
        out.sort();
        out
    }

    #[test]
    fn the_same_seed_gives_the_same_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let a = generate(Size::S, 7, &dir.path().join("a")).unwrap();
        let b = generate(Size::S, 7, &dir.path().join("b")).unwrap();
        assert_eq!(a, b);
        assert_eq!(tree(&dir.path().join("a")), tree(&dir.path().join("b")));
        generate(Size::S, 8, &dir.path().join("c")).unwrap();
        assert_ne!(tree(&dir.path().join("a")), tree(&dir.path().join("c")));
    }

    #[test]
    fn size_s_has_the_shape_of_a_store() {
        let dir = tempfile::tempdir().unwrap();
        let m = generate(Size::S, DEFAULT_SEED, dir.path()).unwrap();
        assert_eq!(Manifest::read(dir.path()).unwrap(), m);
        assert_eq!(m.files, 100);
        assert!((900_000..1_200_000).contains(&m.bytes), "{}", m.bytes);
        let memory = fs::read_to_string(dir.path().join("MEMORY.md")).unwrap();
        assert!(memory.lines().count() < 200);
        let project = dir.path().join("projects").join(m.slug());
        let pad = fs::read_to_string(project.join("SCRATCHPAD.md")).unwrap();
        assert!(pad.contains("- [ ] ") && pad.contains("[x] ") && pad.contains("* [ ] "));
        assert!(project.join("daily/2026-05-30.md").is_file());
        assert!(project.join("daily/2026-05-29.md").is_file());
        assert_eq!(
            fs::read_dir(project.join("daily")).unwrap().count(),
            m.daily
        );
        assert_eq!(
            fs::read_dir(project.join("notes")).unwrap().count(),
            m.notes
        );
    }

    /// Each dense word is in most files of the dense variant, and in far
    /// fewer of the plain corpus.
    #[test]
    fn the_dense_variant_holds_its_words_in_most_files() {
        let dir = tempfile::tempdir().unwrap();
        let plain = generate_variant(Size::S, DEFAULT_SEED, false, &dir.path().join("p")).unwrap();
        let dense = generate_variant(Size::S, DEFAULT_SEED, true, &dir.path().join("d")).unwrap();
        assert!(dense.dense && !plain.dense);
        assert_eq!(Manifest::read(&dir.path().join("d")).unwrap(), dense);
        let share = |root: &str, word: &str| {
            let files = tree(&dir.path().join(root));
            let with = files
                .iter()
                .filter(|(_, b)| String::from_utf8_lossy(b).to_lowercase().contains(word))
                .count();
            with as f64 / files.len() as f64
        };
        for word in ["rollback", "flaky", "migration", "token"] {
            let (p, d) = (share("p", word), share("d", word));
            assert!(
                d >= 0.75 && d > p + 0.2,
                "{word}: plain {p:.2}, dense {d:.2}"
            );
        }
    }

    #[test]
    fn a_directory_that_is_not_a_corpus_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("precious.txt"), "keep").unwrap();
        assert!(generate(Size::S, 1, dir.path()).is_err());
        assert!(dir.path().join("precious.txt").exists());
    }
}
