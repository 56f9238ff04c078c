//! Cutting a note into the pieces that get a vector each: about 64 word-pieces along
//! headings and paragraphs, each prefixed with the note's name and its headings, and
//! content-hashed so that a change re-embeds only the chunks whose text changed.
//!
//! Pure functions over text: the caller supplies the word-piece counter (the real tokenizer,
//! or in tests anything that adds up over spaces and line ends, as it does).

use sha2::{Digest, Sha256};

/// The chunk size the issue measured best (64-piece chunks beat 200-piece ones).
pub const TARGET_PIECES: usize = 64;

/// One chunk of a note.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    /// What gets embedded: `name › heading › subheading` on the first line, then the body.
    pub text: String,
    /// Headings above the body, outermost first.
    pub headings: Vec<String>,
    /// 1-based line of the note where the body starts.
    pub line: usize,
    /// The sha256 of `text`: equal text, equal digest, whatever the note around it.
    pub sha256: [u8; 32],
}

/// A paragraph (or fenced code block) with the headings it sits under.
struct Block {
    headings: Vec<String>,
    line: usize,
    lines: Vec<String>,
}

/// An ATX heading's level and text, if `line` is one.
fn heading(line: &str) -> Option<(usize, String)> {
    let t = line.trim_start();
    if line.len() - t.len() > 3 {
        return None;
    }
    let level = t.bytes().take_while(|&b| b == b'#').count();
    let rest = &t[level..];
    if !(1..=6).contains(&level) || !(rest.is_empty() || rest.starts_with([' ', '\t'])) {
        return None;
    }
    let text = rest.trim().trim_end_matches('#').trim_end();
    Some((level, text.to_owned()))
}

fn fence(line: &str) -> Option<&str> {
    let t = line.trim_start();
    ["```", "~~~"].into_iter().find(|f| t.starts_with(f))
}

/// Paragraphs and code blocks with their heading paths; headings themselves are not blocks.
fn blocks(markdown: &str) -> Vec<Block> {
    let mut out: Vec<Block> = Vec::new();
    let mut path: Vec<(usize, String)> = Vec::new();
    let mut open = false;
    let mut in_fence: Option<&str> = None;
    for (i, line) in markdown.lines().enumerate() {
        if let Some(f) = in_fence {
            out.last_mut()
                .expect("fence block")
                .lines
                .push(line.to_owned());
            if fence(line) == Some(f) {
                in_fence = None;
                open = false;
            }
            continue;
        }
        if let Some(f) = fence(line) {
            in_fence = Some(f);
        } else if let Some((level, text)) = heading(line) {
            path.retain(|(l, _)| *l < level);
            path.push((level, text));
            open = false;
            continue;
        } else if line.trim().is_empty() {
            open = false;
            continue;
        }
        if !open || in_fence.is_some() {
            out.push(Block {
                headings: path.iter().map(|(_, t)| t.clone()).collect(),
                line: i + 1,
                lines: Vec::new(),
            });
        }
        out.last_mut()
            .expect("open block")
            .lines
            .push(line.to_owned());
        open = in_fence.is_none();
    }
    out
}

/// Pieces of `text` of at most `target` by `count`, cut at line ends where possible and at
/// word ends otherwise; a single word longer than `target` stays whole. Each with its count,
/// summed from its lines' or words' (see [`chunk_note`] on why that is the same).
fn split(text: &str, target: usize, count: &dyn Fn(&str) -> usize) -> Vec<(String, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    // One line is counted whole: it may hold whitespace the tokenizer drops
    // (a form feed) where its words are cut.
    if lines.len() <= 1 {
        let n = count(text);
        if n <= target {
            return vec![(text.to_owned(), n)];
        }
    }
    let (units, sep): (Vec<&str>, &str) = if lines.len() > 1 {
        (lines, "\n")
    } else {
        (text.split_whitespace().collect(), " ")
    };
    let counts: Vec<usize> = units.iter().map(|u| count(u)).collect();
    let total = counts.iter().sum();
    if total <= target && sep == "\n" {
        return vec![(text.to_owned(), total)];
    }
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut cur_n = 0;
    for (unit, n) in units.into_iter().zip(counts) {
        if n > target && sep == "\n" {
            if !cur.is_empty() {
                out.push((std::mem::take(&mut cur), std::mem::take(&mut cur_n)));
            }
            out.extend(split(unit, target, count));
            continue;
        }
        if !cur.is_empty() && cur_n + n > target {
            out.push((std::mem::replace(&mut cur, unit.to_owned()), cur_n));
            cur_n = n;
        } else {
            if !cur.is_empty() {
                cur.push_str(sep);
            }
            cur.push_str(unit);
            cur_n += n;
        }
    }
    if !cur.is_empty() {
        out.push((cur, cur_n));
    }
    out
}

/// Cuts the note `name` into chunks whose bodies hold at most `target` word-pieces by
/// `count` (one word longer than that stays whole). Consecutive paragraphs under the same
/// headings share a chunk while they fit; a longer paragraph is cut at line or word ends.
///
/// `count` must add up where text is joined at a space or a line end: `count(a + " " + b)`
/// and `count(a + "\n" + b)` are `count(a) + count(b)`, as for a word-piece count (BERT's
/// pre-tokenizer splits words there, and whitespace makes no piece). Each line is then
/// counted once, not again for every piece and body it joins, which made cutting a note
/// cost about ten tokenizations of it.
///
/// # Examples
/// ```
/// use agent_memory_embed::chunk::chunk_note;
/// let words = |s: &str| s.split_whitespace().count();
/// let chunks = chunk_note("deploy", "# Servers\n\nWe run in eu-west-1.\n", 64, &words);
/// assert_eq!(chunks[0].text, "deploy › Servers\nWe run in eu-west-1.");
/// ```
pub fn chunk_note(
    name: &str,
    markdown: &str,
    target: usize,
    count: &dyn Fn(&str) -> usize,
) -> Vec<Chunk> {
    // Each body with its count: text joined at whitespace counts the sum of its parts.
    let mut bodies: Vec<(Vec<String>, usize, String, usize)> = Vec::new();
    for block in blocks(markdown) {
        let text = block.lines.join("\n");
        for (i, (part, n)) in split(&text, target, count).into_iter().enumerate() {
            let line = block.line + if i == 0 { 0 } else { line_of(&text, &part) };
            match bodies.last_mut() {
                Some((h, _, body, body_n)) if *h == block.headings && *body_n + n <= target => {
                    body.push_str("\n\n");
                    body.push_str(&part);
                    *body_n += n;
                }
                _ => bodies.push((block.headings.clone(), line, part, n)),
            }
        }
    }
    bodies
        .into_iter()
        .map(|(headings, line, body, _)| {
            let prefix = std::iter::once(name)
                .chain(headings.iter().map(String::as_str))
                .collect::<Vec<_>>()
                .join(" › ");
            let text = format!("{prefix}\n{body}");
            let sha256 = Sha256::digest(text.as_bytes()).into();
            Chunk {
                text,
                headings,
                line,
                sha256,
            }
        })
        .collect()
}

/// Lines before `part` within `text` (0 when not found at a line start).
fn line_of(text: &str, part: &str) -> usize {
    let first = part.lines().next().unwrap_or("");
    text.lines()
        .position(|l| l.starts_with(first) && !first.is_empty())
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOTE: &str = "\
# Deploy

We run in eu-west-1.
The region is Ireland.

Rollbacks use the previous image.

## Database

Postgres 16, pool size 20.

```sh
# not a heading
psql -c 'select 1'
```

# Team
Alice owns on-call.
";

    fn words(s: &str) -> usize {
        s.split_whitespace().count()
    }

    #[test]
    fn chunks_follow_headings_and_prefix_them() {
        let c = chunk_note("infra", NOTE, 64, &words);
        let texts: Vec<&str> = c.iter().map(|c| c.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "infra › Deploy\nWe run in eu-west-1.\nThe region is Ireland.\n\nRollbacks use the previous image.",
                "infra › Deploy › Database\nPostgres 16, pool size 20.\n\n```sh\n# not a heading\npsql -c 'select 1'\n```",
                "infra › Team\nAlice owns on-call.",
            ]
        );
        assert_eq!(c.iter().map(|c| c.line).collect::<Vec<_>>(), [3, 10, 18]);
        assert_eq!(c[1].headings, ["Deploy", "Database"]);
    }

    #[test]
    fn paragraphs_split_when_they_do_not_fit() {
        let c = chunk_note("infra", NOTE, 5, &words);
        let bodies: Vec<&str> = c
            .iter()
            .map(|c| c.text.split_once('\n').unwrap().1)
            .collect();
        assert_eq!(bodies[0], "We run in eu-west-1.");
        assert_eq!(bodies[1], "The region is Ireland.");
        assert_eq!(bodies[2], "Rollbacks use the previous image.");
        assert!(
            c.iter()
                .all(|c| words(c.text.split_once('\n').unwrap().1) <= 5),
            "{c:#?}"
        );
        assert_eq!(c[1].line, 4);
    }

    #[test]
    fn a_long_line_is_cut_at_words() {
        let line = (0..10)
            .map(|i| format!("w{i}"))
            .collect::<Vec<_>>()
            .join(" ");
        let c = chunk_note("n", &line, 4, &words);
        let bodies: Vec<&str> = c
            .iter()
            .map(|c| c.text.split_once('\n').unwrap().1)
            .collect();
        assert_eq!(bodies, ["w0 w1 w2 w3", "w4 w5 w6 w7", "w8 w9"]);
    }

    #[test]
    fn lines_after_a_long_line_fill_a_piece_as_lines_before_it_do() {
        // "a b c d e f" is longer than 4 words: cut at words, and what was
        // gathered before it counts for nothing after it.
        let note = "x y\na b c d e f\ng h\ni j\nk";
        let c = chunk_note("n", note, 4, &words);
        let bodies: Vec<&str> = c
            .iter()
            .map(|c| c.text.split_once('\n').unwrap().1)
            .collect();
        assert_eq!(bodies, ["x y", "a b c d", "e f", "g h\ni j", "k"]);
    }

    #[test]
    fn hashes_change_only_where_the_text_changed() {
        let before = chunk_note("infra", NOTE, 64, &words);
        let after = chunk_note(
            "infra",
            &NOTE.replace("pool size 20", "pool size 40"),
            64,
            &words,
        );
        let same: Vec<bool> = before
            .iter()
            .zip(&after)
            .map(|(a, b)| a.sha256 == b.sha256)
            .collect();
        assert_eq!(same, [true, false, true]);
        // The name is part of what is embedded, so a rename re-embeds.
        assert_ne!(
            chunk_note("ops", NOTE, 64, &words)[0].sha256,
            before[0].sha256
        );
    }

    #[test]
    fn headings_are_atx_only_and_empty_notes_have_no_chunks() {
        assert_eq!(heading("## Two ##"), Some((2, "Two".into())));
        assert_eq!(heading("#hashtag"), None);
        assert_eq!(heading("    # indented code"), None);
        assert!(chunk_note("n", "", 64, &words).is_empty());
        assert!(chunk_note("n", "# Only\n\n## Headings\n", 64, &words).is_empty());
    }
}
