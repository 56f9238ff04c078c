//! The modules import downward only: no module imports one that imports
//! it back, directly or through others. Read from the sources (`crate::x`
//! paths outside test code), so a new import that closes a circle fails
//! here and names it.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

/// The top-level modules of the crate and the files of each (a module's
/// own file and everything in its folder), test files left out.
fn modules(src: &Path) -> BTreeMap<String, Vec<std::path::PathBuf>> {
    let mut out: BTreeMap<String, Vec<std::path::PathBuf>> = BTreeMap::new();
    for entry in fs::read_dir(src).unwrap().flatten() {
        let path = entry.path();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        if name == "lib" {
            continue;
        }
        if path.is_dir() {
            let mut stack = vec![path];
            while let Some(dir) = stack.pop() {
                for e in fs::read_dir(&dir).unwrap().flatten() {
                    let p = e.path();
                    if p.is_dir() {
                        if p.file_name().unwrap() != "tests" {
                            stack.push(p);
                        }
                    } else if p.extension().is_some_and(|x| x == "rs")
                        && p.file_name().unwrap() != "tests.rs"
                    {
                        out.entry(name.clone()).or_default().push(p);
                    }
                }
            }
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.entry(name).or_default().push(path);
        }
    }
    out
}

/// Which modules each module names as `crate::x`, outside its tests.
fn imports(mods: &BTreeMap<String, Vec<std::path::PathBuf>>) -> BTreeMap<String, BTreeSet<String>> {
    let path = regex_lite::Regex::new(r"crate::([a-z_]+)").unwrap();
    let mut graph = BTreeMap::new();
    for (name, files) in mods {
        let mut deps = BTreeSet::new();
        for file in files {
            let text = fs::read_to_string(file).unwrap();
            let code = match text.find("#[cfg(test)]\nmod tests {") {
                Some(at) => &text[..at],
                None => &text,
            };
            for c in path.captures_iter(code) {
                let dep = &c[1];
                if dep != name && mods.contains_key(dep) {
                    deps.insert(dep.to_string());
                }
            }
        }
        graph.insert(name.clone(), deps);
    }
    graph
}

/// A path from `from` back to `to`, if there is one.
fn path_to(
    graph: &BTreeMap<String, BTreeSet<String>>,
    from: &str,
    to: &str,
    seen: &mut BTreeSet<String>,
) -> Option<Vec<String>> {
    if from == to {
        return Some(vec![to.to_string()]);
    }
    if !seen.insert(from.to_string()) {
        return None;
    }
    for next in &graph[from] {
        if let Some(mut rest) = path_to(graph, next, to, seen) {
            rest.insert(0, from.to_string());
            return Some(rest);
        }
    }
    None
}

#[test]
fn no_module_imports_one_that_imports_it_back() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mods = modules(&src);
    assert!(mods.contains_key("store") && mods.contains_key("history"));
    let graph = imports(&mods);
    let mut circles = Vec::new();
    for (name, deps) in &graph {
        for dep in deps {
            if let Some(back) = path_to(&graph, dep, name, &mut BTreeSet::new()) {
                circles.push(format!("{name} -> {}", back.join(" -> ")));
            }
        }
    }
    assert!(
        circles.is_empty(),
        "import circles:\n{}",
        circles.join("\n")
    );
    // The engines never reach the store they serve.
    for engine in [
        "history", "anchors", "index", "listing", "rank", "search", "secrets",
    ] {
        let reach = path_to(&graph, engine, "store", &mut BTreeSet::new());
        assert!(reach.is_none(), "{engine} reaches the store: {reach:?}");
    }
}
