//! Tool calls from a model: parsing never panics, and a call refused for
//! its input changes nothing on disk. Calls run against a real store in a
//! temp dir, emptied every few hundred runs.
#![no_main]

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use agent_memory_core::{Clock, ErrorKind, Memory, Options, tools};
use libfuzzer_sys::fuzz_target;

struct Store {
    _dir: tempfile::TempDir,
    root: PathBuf,
    memory: Memory,
    runs: u64,
}

static STORE: Mutex<Option<Store>> = Mutex::new(None);

fn tree(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path.clone());
            }
            out.push(path);
        }
    }
    out.sort();
    out
}

fuzz_target!(|input: (&str, &str)| {
    let (name, arguments) = input;
    let parsed = tools::parse(name, arguments);
    let mut guard = STORE.lock().unwrap();
    let store = guard.get_or_insert_with(|| {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        std::fs::create_dir(&root).unwrap();
        let mut options = Options::new("/fuzz/project");
        options.clock = Clock {
            utc_offset_minutes: 0,
            fixed_unix_seconds: Some(1_780_000_000),
        };
        let memory = Memory::open(&root, options).unwrap();
        Store {
            _dir: dir,
            root,
            memory,
            runs: 0,
        }
    });
    store.runs += 1;
    if store.runs.is_multiple_of(256) {
        for path in std::fs::read_dir(&store.root).unwrap().flatten() {
            let path = path.path();
            let _ = std::fs::remove_dir_all(&path).or_else(|_| std::fs::remove_file(&path));
        }
    }
    let before = tree(&store.root);
    let result = tools::call(&store.memory, name, arguments);
    match (&parsed, &result) {
        (Err(p), Err(r)) => assert_eq!(p.kind(), r.kind()),
        (Err(p), Ok(_)) => panic!("parse refused ({p}) but the call ran"),
        _ => {}
    }
    if let Err(error) = &result {
        let refused_input = matches!(
            error.kind(),
            ErrorKind::UnknownTool
                | ErrorKind::InvalidArguments
                | ErrorKind::InvalidTarget
                | ErrorKind::InvalidMode
                | ErrorKind::InvalidName
                | ErrorKind::InvalidDate
                | ErrorKind::MissingName
        );
        if refused_input {
            assert_eq!(
                tree(&store.root),
                before,
                "a refused call changed the store: {error}"
            );
        }
    }
    for path in tree(&store.root) {
        assert!(path.starts_with(&store.root));
    }
});
