//! Replays Anthropic memory-tool commands through the native core, for the
//! differential test `tests/anthropic_diff.py`.
//!
//! Usage: `anthropic_replay ROOT PROJECT < commands.json`, where the input is
//! a JSON array of command objects (`{"command": "view", "path": …}`). Prints
//! a JSON array with one result per command: `{"ok": text}` or
//! `{"error": kind, "message": text}`, and then the notes folder's path
//! relative to ROOT as `{"notes": path}`.
//!
//! With `--lines` after the arguments it answers one command per input line
//! instead, one result per output line, flushed (the notes path first), so
//! a test can decide on the next command after seeing this result.

use std::io::{BufRead, Read, Write};

use agent_memory_core::{Memory, Options, anthropic};
use serde_json::{Value, json};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (root, project, lines) = match args.as_slice() {
        [_, root, project] => (root, project, false),
        [_, root, project, flag] if flag == "--lines" => (root, project, true),
        _ => {
            eprintln!("usage: anthropic_replay ROOT PROJECT [--lines] < commands.json");
            std::process::exit(2);
        }
    };
    if lines {
        let memory = open(root, project);
        let mut out = std::io::stdout().lock();
        let notes = json!({ "notes": format!("{}/notes", memory.project_dir()) });
        let _ = writeln!(out, "{notes}");
        let _ = out.flush();
        for line in std::io::stdin().lock().lines() {
            let Ok(line) = line else { break };
            let _ = writeln!(out, "{}", run(&memory, &line));
            let _ = out.flush();
        }
        return;
    }
    let mut input = String::new();
    if let Err(e) = std::io::stdin().read_to_string(&mut input) {
        eprintln!("anthropic_replay: cannot read stdin: {e}");
        std::process::exit(2);
    }
    let commands: Vec<Value> = match serde_json::from_str(&input) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("anthropic_replay: stdin is not a JSON array: {e}");
            std::process::exit(2);
        }
    };
    let memory = open(root, project);
    let mut out: Vec<Value> = commands
        .iter()
        .map(|c| run(&memory, &c.to_string()))
        .collect();
    out.push(json!({ "notes": format!("{}/notes", memory.project_dir()) }));
    println!("{}", Value::Array(out));
}

fn open(root: &str, project: &str) -> Memory {
    match Memory::open(root, Options::new(project)) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("anthropic_replay: {e}");
            std::process::exit(2);
        }
    }
}

fn run(memory: &Memory, arguments: &str) -> Value {
    match anthropic::call(memory, arguments) {
        Ok(text) => json!({ "ok": text }),
        Err(e) => json!({ "error": e.kind().as_str(), "message": e.message() }),
    }
}
