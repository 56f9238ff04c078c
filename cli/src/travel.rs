//! Moving in and out: `agent-memory import` and `agent-memory export`.
//!
//! The command reads the other system's files here, carefully (no symlink is
//! followed, nothing but regular files is opened, nothing larger than the
//! write cap is read, non-UTF-8 is refused), maps each to a file of the
//! store, and hands them all to the component's `import-files`, which applies
//! the name rules, the secret guard and history, as one change. Nothing here
//! writes to the store directly.

use std::fs;
use std::io::{self, Read, Write};
use std::path::{Component, Path, PathBuf};

use agent_memory::{Error, ImportItem, ImportOutcome, Memory, ReadSource, WriteTarget, os_cause};
use anyhow::{Context as _, Result, bail};

/// Deepest folder nesting an import walks into.
const MAX_DEPTH: usize = 8;
/// Most entries an import looks at; the rest are reported as not read.
const MAX_ENTRIES: usize = 10_000;
/// An import of more files than this says on stderr how many it read.
const PROGRESS_FROM: usize = 20;

/// Which store a planned file goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// The personal store under the memory root.
    Personal,
    /// The project's team store (`<project>/.agent-memory/`).
    Team,
}

/// Where one source file goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dest {
    scope: Scope,
    target: WriteTarget,
    /// The note name or the daily log's date.
    name: Option<String>,
    /// A list of one-line entries (a project's index note), merged line by
    /// line.
    index: bool,
}

impl Dest {
    fn personal(target: WriteTarget, name: Option<String>) -> Self {
        Dest {
            scope: Scope::Personal,
            target,
            name,
            index: false,
        }
    }

    fn describe(&self) -> String {
        let scope = match self.scope {
            Scope::Personal => "",
            Scope::Team => "team ",
        };
        match (&self.target, &self.name) {
            (WriteTarget::LongTerm, _) => format!("{scope}MEMORY.md"),
            (WriteTarget::Scratchpad, _) => format!("{scope}scratchpad"),
            (WriteTarget::Daily, Some(date)) => format!("{scope}daily {date}"),
            (WriteTarget::Note, Some(name)) => format!("{scope}note {name}"),
            (target, None) => format!("{scope}{}", target.tool_word()),
        }
    }
}

/// One source file of an import: where it goes and its text, or why it
/// cannot be read (which refuses the import), or why it is no memory at
/// all (skipped).
#[derive(Debug)]
pub struct Entry {
    /// The file, relative to what was named on the command line.
    source: String,
    plan: Result<(Dest, Result<String, String>), String>,
}

/// The note a Claude Code `MEMORY.md` becomes in the project's scope: an
/// index beside the topic notes it links to, so its relative links
/// (`[Deploys](deploys.md)`) resolve to them.
pub const PROJECT_INDEX_NOTE: &str = "memory-index";

/// Which format an import reads.
#[derive(Debug, Clone, Copy)]
pub enum Format {
    /// Claude Code's memory directory, one project's: its index to the
    /// project's note [`PROJECT_INDEX_NOTE`], or with `global` to the
    /// global `MEMORY.md`.
    ClaudeCode {
        /// Merge `MEMORY.md` into the global `MEMORY.md`.
        global: bool,
    },
    /// A project using codescout (`.codescout/memories`, `private-memories`).
    Codescout,
    /// One `AGENTS.md` / `CLAUDE.md` file.
    AgentsMd,
}

/// Reads `path` in `format` into a plan; the write cap bounds each file.
pub fn plan(format: Format, path: &Path, max_bytes: u64) -> Result<Vec<Entry>> {
    match format {
        Format::ClaudeCode { global } => {
            let dir = source_dir(path)?;
            let mut entries = Vec::new();
            let map = move |rel: &str| claude_code_dest(rel, global);
            walk(&dir, &dir, 0, max_bytes, &mut entries, &map);
            if entries.iter().all(|e| e.plan.is_err()) {
                bail!(
                    "`{}` holds no Claude Code memory (no MEMORY.md, no topic .md file); nothing was imported. Name a project's memory directory, ~/.claude/projects/<project>/memory",
                    path.display()
                );
            }
            Ok(entries)
        }
        Format::Codescout => {
            let project = source_dir(path)?;
            let base = project.join(".codescout");
            let mut entries = Vec::new();
            for (folder, scope) in [
                ("memories", Scope::Team),
                ("private-memories", Scope::Personal),
            ] {
                let dir = base.join(folder);
                match fs::symlink_metadata(&dir) {
                    Ok(meta) if meta.is_dir() => {
                        let map = move |rel: &str| codescout_dest(rel, scope);
                        let mut found = Vec::new();
                        walk(&dir, &dir, 0, max_bytes, &mut found, &map);
                        for mut entry in found {
                            entry.source = format!(".codescout/{folder}/{}", entry.source);
                            entries.push(entry);
                        }
                    }
                    Ok(_) => entries.push(Entry {
                        source: format!(".codescout/{folder}"),
                        plan: Err("not a real directory (a link or a file); not read".into()),
                    }),
                    Err(_) => {}
                }
            }
            if entries.is_empty() && !base.is_dir() {
                bail!(
                    "`{}` has no .codescout directory: name the project directory that holds .codescout/memories",
                    project.display()
                );
            }
            Ok(entries)
        }
        Format::AgentsMd => {
            let file_name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let stem = file_name.strip_suffix(".md").unwrap_or(&file_name);
            // A note name has no dots: `CLAUDE.local.md` becomes `CLAUDE-local`.
            let name = stem.replace('.', "-");
            // The user named this file: a link to it is followed, but it
            // must still be a small regular UTF-8 file.
            let plan = Ok((
                Dest::personal(WriteTarget::Note, Some(name)),
                read_text(path, true, max_bytes),
            ));
            Ok(vec![Entry {
                source: file_name,
                plan,
            }])
        }
    }
}

fn source_dir(path: &Path) -> Result<PathBuf> {
    let dir = fs::canonicalize(path)
        .with_context(|| format!("cannot import from `{}`", path.display()))?;
    if !dir.is_dir() {
        bail!("cannot import from `{}`: not a directory", path.display());
    }
    Ok(dir)
}

/// Claude Code's layout: `MEMORY.md` is the index (of one project: the note
/// [`PROJECT_INDEX_NOTE`], or with `global` the global `MEMORY.md`),
/// `logs/YYYY/MM/YYYY-MM-DD.md` are daily logs, every other `.md` file is a
/// topic file (a note named by its path without `.md`). `SCRATCHPAD.md` is
/// what `export` writes for the scratchpad, and comes back to it.
fn claude_code_dest(rel: &str, global: bool) -> Result<Dest, String> {
    if rel == "MEMORY.md" {
        return Ok(match global {
            true => Dest::personal(WriteTarget::LongTerm, None),
            false => Dest {
                index: true,
                ..Dest::personal(WriteTarget::Note, Some(PROJECT_INDEX_NOTE.to_string()))
            },
        });
    }
    if rel == "SCRATCHPAD.md" {
        return Ok(Dest::personal(WriteTarget::Scratchpad, None));
    }
    if let Some(rest) = rel.strip_prefix("logs/") {
        let parts: Vec<&str> = rest.split('/').collect();
        if let [year, month, file] = parts[..]
            && let Some(date) = file.strip_suffix(".md")
            && date.len() == 10
            && date.get(..4) == Some(year)
            && date.get(5..7) == Some(month)
        {
            return Ok(Dest::personal(WriteTarget::Daily, Some(date.to_string())));
        }
        return Err("under logs/ but not logs/YYYY/MM/YYYY-MM-DD.md; not imported".into());
    }
    note_dest(rel, Scope::Personal)
}

/// codescout's layout: a topic `a/b` is `a/b.md`; `<topic>.anchors.toml` is
/// its staleness sidecar, which the store re-makes on write.
fn codescout_dest(rel: &str, scope: Scope) -> Result<Dest, String> {
    if rel.ends_with(".anchors.toml") {
        return Err("a codescout anchor sidecar; not imported (anchors are made anew)".into());
    }
    note_dest(rel, scope)
}

fn note_dest(rel: &str, scope: Scope) -> Result<Dest, String> {
    match rel.strip_suffix(".md") {
        Some(name) => Ok(Dest {
            scope,
            target: WriteTarget::Note,
            name: Some(name.to_string()),
            index: false,
        }),
        None => Err("not a Markdown (.md) file; not imported".into()),
    }
}

/// Walks `dir` (under `base`), never through a link, pushing one entry per
/// file: mapped by `map`, or skipped with the reason.
fn walk(
    base: &Path,
    dir: &Path,
    depth: usize,
    max_bytes: u64,
    entries: &mut Vec<Entry>,
    map: &dyn Fn(&str) -> Result<Dest, String>,
) {
    let rel_of = |path: &Path| {
        path.strip_prefix(base)
            .unwrap_or(path)
            .components()
            .filter_map(|c| match c {
                Component::Normal(part) => Some(part.to_string_lossy().into_owned()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("/")
    };
    let listing = match fs::read_dir(dir) {
        Ok(listing) => listing,
        Err(e) => {
            entries.push(Entry {
                source: rel_of(dir),
                plan: Err(format!("cannot list it ({})", os_cause(&e))),
            });
            return;
        }
    };
    let mut children: Vec<_> = listing.flatten().map(|e| e.path()).collect();
    children.sort();
    for path in children {
        let source = rel_of(&path);
        if entries.len() >= MAX_ENTRIES {
            entries.push(Entry {
                source,
                plan: Err(format!(
                    "not read: an import looks at {MAX_ENTRIES} entries at most"
                )),
            });
            return;
        }
        let skip = |why: &str| Entry {
            source: source.clone(),
            plan: Err(why.to_string()),
        };
        let hidden = path
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with('.'));
        let meta = match fs::symlink_metadata(&path) {
            Ok(meta) => meta,
            Err(e) => {
                entries.push(skip(&format!("cannot inspect it ({})", os_cause(&e))));
                continue;
            }
        };
        if hidden {
            entries.push(skip("a hidden (dot) file or folder; not imported"));
        } else if meta.file_type().is_symlink() {
            entries.push(skip("a symbolic link; links are never followed"));
        } else if meta.is_dir() {
            if depth + 1 >= MAX_DEPTH {
                entries.push(skip(&format!(
                    "a folder nested deeper than {MAX_DEPTH}; not read"
                )));
            } else {
                walk(base, &path, depth + 1, max_bytes, entries, map);
            }
        } else if !meta.is_file() {
            entries.push(skip(
                "not a regular file (a FIFO, socket or device); not read",
            ));
        } else {
            let plan = map(&source).map(|dest| (dest, read_text(&path, false, max_bytes)));
            entries.push(Entry { source, plan });
        }
    }
}

/// Reads a regular file of at most `max_bytes` as UTF-8. Never blocks on a
/// FIFO (opened non-blocking, checked after opening) and, unless `follow`,
/// never opens through a symbolic link.
fn read_text(path: &Path, follow: bool, max_bytes: u64) -> Result<String, String> {
    let mut options = fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        let nofollow = if follow { 0 } else { libc::O_NOFOLLOW };
        options.custom_flags(libc::O_NONBLOCK | nofollow);
    }
    #[cfg(not(unix))]
    let _ = follow;
    let file = options
        .open(path)
        .map_err(|e| format!("cannot open it ({})", os_cause(&e)))?;
    let meta = file
        .metadata()
        .map_err(|e| format!("cannot inspect it ({})", os_cause(&e)))?;
    if !meta.is_file() {
        return Err("not a regular file (a FIFO, socket, device or folder); not read".into());
    }
    if meta.len() > max_bytes {
        return Err(format!(
            "too large: {} bytes, over the {max_bytes}-byte write cap; split it first",
            meta.len()
        ));
    }
    let mut bytes = Vec::new();
    file.take(max_bytes + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read it ({})", os_cause(&e)))?;
    if bytes.len() as u64 > max_bytes {
        return Err(format!(
            "too large: it grew past the {max_bytes}-byte write cap while being read"
        ));
    }
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "not valid UTF-8 (at byte {}); convert it first",
            e.utf8_error().valid_up_to()
        )
    })
}

/// Runs (or, with `dry_run`, checks) a plan through the component and prints
/// one line per file and a summary. The files of each store are one change
/// (`import-files`), so one `undo` takes the import back; every file is
/// checked first, and any that cannot be read or is refused refuses the
/// whole import, naming each, with nothing written. `team` imports into the
/// team store; it is `None` when the project has no team directory.
pub fn run(
    memory: &mut Memory,
    team: Option<&mut Memory>,
    entries: Vec<Entry>,
    dry_run: bool,
) -> Result<()> {
    let mut team = team;
    let width = entries.iter().map(|e| e.source.len()).max().unwrap_or(0);
    let mut skipped = Vec::new();
    let mut unreadable = Vec::new();
    // Personal, then team: the files, where they go, and their lines.
    let mut stores: [Vec<(ImportItem, Dest)>; 2] = [Vec::new(), Vec::new()];
    for entry in entries {
        match entry.plan {
            Err(why) => skipped.push(format!("skip       {:<width$}  {why}", entry.source)),
            Ok((dest, Err(why))) => {
                unreadable.push(format!("`{}` (-> {}): {why}", entry.source, dest.describe()));
            }
            Ok((dest, Ok(_))) if dest.scope == Scope::Team && team.is_none() => skipped.push(
                format!(
                    "skip       {:<width$}  -> {}: no team directory (<project>/.agent-memory); not imported",
                    entry.source,
                    dest.describe()
                ),
            ),
            Ok((dest, Ok(text))) => {
                let item = ImportItem {
                    target: dest.target,
                    name: dest.name.clone(),
                    content: text,
                    source: entry.source,
                    by_line: dest.index,
                };
                stores[usize::from(dest.scope == Scope::Team)].push((item, dest));
            }
        }
    }
    let total: usize = stores.iter().map(Vec::len).sum();
    if total >= PROGRESS_FROM && !dry_run {
        eprintln!("import: {total} files read; importing them as one change");
    }
    // Check every file of both stores before writing to either.
    let mut refusals = unreadable;
    let batches: [Vec<ImportItem>; 2] = stores
        .each_ref()
        .map(|files| files.iter().map(|(item, _)| item.clone()).collect());
    for (i, items) in batches.iter().enumerate() {
        if items.is_empty() {
            continue;
        }
        if let Some(store) = store_of(i, memory, &mut team)
            && let Err(e) = store.import_files(items, true)
        {
            refusals.push(describe(&e));
        }
    }
    let mut out = io::stdout().lock();
    for line in &skipped {
        writeln!(out, "{line}")?;
    }
    out.flush()?;
    if !refusals.is_empty() {
        bail!(
            "the import is refused and nothing was imported; fix these files in the source (or leave them out) and import again:\n  {}",
            refusals.join("\n  ")
        );
    }
    let mut counts = [0usize; 3]; // created, appended, unchanged
    let mut changed = [false; 2];
    for (i, files) in stores.iter().enumerate() {
        if files.is_empty() {
            continue;
        }
        let Some(store) = store_of(i, memory, &mut team) else {
            continue;
        };
        let receipt = store.import_files(&batches[i], dry_run)?;
        for ((item, dest), file) in files.iter().zip(&receipt.files) {
            let (word, slot) = match file.outcome {
                ImportOutcome::Created => ("create", 0),
                ImportOutcome::Appended => ("append", 1),
                ImportOutcome::Unchanged => ("unchanged", 2),
            };
            counts[slot] += 1;
            changed[i] |= slot < 2;
            let mut line = format!(
                "{word:<9}  {:<width$}  -> {} ({})",
                item.source,
                dest.describe(),
                file.path
            );
            for warning in &file.warnings {
                line.push_str(&format!("\n           {warning}"));
            }
            writeln!(out, "{line}")?;
        }
        for warning in &receipt.warnings {
            writeln!(out, "warning: {warning}")?;
        }
    }
    let [created, appended, unchanged] = counts;
    let skipped = skipped.len();
    if dry_run {
        writeln!(
            out,
            "Dry run: would create {created}, append to {appended}; {unchanged} unchanged, {skipped} skipped. Nothing was written."
        )?;
    } else {
        let undo = match changed {
            [false, false] => "Nothing new: memory already holds all of it.",
            [true, false] => "One change: `agent-memory undo` takes it all back.",
            [false, true] => {
                "One change, in the team store: `agent-memory --scope team undo` takes it all back."
            }
            [true, true] => {
                "Two changes: `agent-memory undo` takes back the personal notes, `agent-memory --scope team undo` the team's."
            }
        };
        writeln!(
            out,
            "Imported: {created} created, {appended} appended; {unchanged} unchanged, {skipped} skipped. {undo}"
        )?;
    }
    out.flush()?;
    Ok(())
}

/// The store of `stores[i]` in [`run`]: personal first, then the team's.
fn store_of<'a>(
    i: usize,
    memory: &'a mut Memory,
    team: &'a mut Option<&mut Memory>,
) -> Option<&'a mut Memory> {
    if i == 0 {
        Some(memory)
    } else {
        team.as_deref_mut()
    }
}

/// `<kind>: <message>` for a refusal of the component.
fn describe(error: &Error) -> String {
    match error {
        Error::Memory(e) => format!("{}: {}", e.kind().as_str(), e.message()),
        other => other.to_string(),
    }
}

/// Writes this project's memory in Claude Code's layout under `out`:
/// `MEMORY.md`, one topic file per note (`a/b.md` for `a/b`), the daily logs
/// as `logs/YYYY/MM/YYYY-MM-DD.md`, and the scratchpad as `SCRATCHPAD.md`.
/// Files are written as they are stored (no frontmatter is added). An
/// existing file is never overwritten: one with the same content is left,
/// one with other content is reported and skipped.
pub fn export(memory: &mut Memory, out: &Path) -> Result<()> {
    if let Ok(meta) = fs::metadata(out)
        && !meta.is_dir()
    {
        bail!(
            "cannot export to `{}`: it exists and is not a directory; name a directory to write the Claude Code layout into (a new one is created)",
            out.display()
        );
    }
    fs::create_dir_all(out).with_context(|| format!("cannot create `{}`", out.display()))?;
    let prefix = format!("{}/", memory.project_dir());
    let files = memory.list_files()?;
    let mut stdout = io::stdout().lock();
    let (mut written, mut same, mut skipped) = (0, 0, 0);
    for file in files {
        let (source, name, dest): (ReadSource, Option<String>, String) = if file.path == "MEMORY.md"
        {
            (ReadSource::LongTerm, None, "MEMORY.md".into())
        } else if let Some(rel) = file.path.strip_prefix(&prefix) {
            if rel == "SCRATCHPAD.md" {
                (ReadSource::Scratchpad, None, "SCRATCHPAD.md".into())
            } else if let Some(day) = rel
                .strip_prefix("daily/")
                .and_then(|f| f.strip_suffix(".md"))
            {
                let (Some(year), Some(month)) = (day.get(..4), day.get(5..7)) else {
                    continue;
                };
                let dest = format!("logs/{year}/{month}/{day}.md");
                (ReadSource::Daily, Some(day.to_string()), dest)
            } else if let Some(note) = rel
                .strip_prefix("notes/")
                .and_then(|f| f.strip_suffix(".md"))
            {
                let dest = format!("{note}.md");
                // These paths mean something else in the layout: an
                // import would bring the note back as another file.
                if dest == "MEMORY.md" || dest == "SCRATCHPAD.md" || note.starts_with("logs/") {
                    skipped += 1;
                    writeln!(
                        stdout,
                        "skip       {dest}: note `{note}` would read back as another file of the layout; rename it and export again"
                    )?;
                    continue;
                }
                (ReadSource::Note, Some(note.to_string()), dest)
            } else {
                continue;
            }
        } else {
            continue;
        };
        let text = memory.read(source, name.as_deref())?.unwrap_or_default();
        let target = out.join(&dest);
        let line = match fs::read(&target) {
            Ok(existing) if existing == text.as_bytes() => {
                same += 1;
                format!("unchanged  {dest}")
            }
            Ok(_) => {
                skipped += 1;
                format!("skip       {dest}: exists with other content; not overwritten")
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                if let Some(parent) = target.parent() {
                    fs::create_dir_all(parent)
                        .with_context(|| format!("cannot create `{}`", parent.display()))?;
                }
                let mut f = fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .open(&target)
                    .with_context(|| format!("cannot create `{}`", target.display()))?;
                f.write_all(text.as_bytes())
                    .and_then(|()| f.sync_all())
                    .with_context(|| format!("cannot write `{}`", target.display()))?;
                written += 1;
                format!("write      {dest}  <- {}", file.path)
            }
            Err(e) => {
                skipped += 1;
                format!("skip       {dest}: cannot read what is there ({e})")
            }
        };
        writeln!(stdout, "{line}")?;
    }
    writeln!(
        stdout,
        "Exported to {}: {written} written, {same} unchanged, {skipped} skipped.",
        out.display()
    )?;
    stdout.flush()?;
    Ok(())
}
