//! The modules import downward only: no module imports one that imports
//! it back, directly or through others. Read from the sources (`crate::x`
//! paths outside test code, and calls of `Memory`'s methods, which the
//! modules define in `impl Memory` blocks of their own), so a new import
//! or method call that closes a circle fails here and names it.
//!
//! Calls through methods count: `tools` once called `Memory::queue_call`
//! (defined in `review.rs`) while `review` called `tools::call_ungated`,
//! and this test then failed with `tools -> review -> tools`.

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
            for c in path.captures_iter(code(&text)) {
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

/// The code of `text` before its test module.
fn code(text: &str) -> &str {
    match text.find("#[cfg(test)]\nmod tests {") {
        Some(at) => &text[..at],
        None => text,
    }
}

/// Method names std's types share with `Memory` (`i64::abs`,
/// `Vec::clear`, `Vec::drain`): a call of one cannot be placed by its name.
const STD_NAMES: [&str; 3] = ["abs", "clear", "drain"];

/// Which module defines each method of `Memory`: the `fn`s of the `impl
/// Memory` blocks in its files. Left out, as a call of one cannot be
/// placed by its name: names several modules define, names of other
/// functions of the crate, and [`STD_NAMES`].
fn memory_methods(mods: &BTreeMap<String, Vec<std::path::PathBuf>>) -> BTreeMap<String, String> {
    let block = regex_lite::Regex::new(r"(?m)^impl(?:<[^>]*>)? (?:[a-z_]+::)*Memory \{").unwrap();
    let method =
        regex_lite::Regex::new(r"(?m)^    (?:pub(?:\([a-z]+\))? )?fn ([a-z_][a-z0-9_]*)").unwrap();
    let any_fn = regex_lite::Regex::new(r"\bfn ([a-z_][a-z0-9_]*)").unwrap();
    let mut found: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut in_blocks: BTreeMap<String, usize> = BTreeMap::new();
    let mut everywhere: BTreeMap<String, usize> = BTreeMap::new();
    for (name, files) in mods {
        for file in files {
            let text = fs::read_to_string(file).unwrap();
            let code = code(&text);
            for c in any_fn.captures_iter(code) {
                *everywhere.entry(c[1].to_string()).or_default() += 1;
            }
            for m in block.find_iter(code) {
                // The block ends at the first `}` at the start of a line.
                let body = &code[m.end()..];
                let body = &body[..body.find("\n}").unwrap_or(body.len())];
                for c in method.captures_iter(body) {
                    found
                        .entry(c[1].to_string())
                        .or_default()
                        .insert(name.clone());
                    *in_blocks.entry(c[1].to_string()).or_default() += 1;
                }
            }
        }
    }
    found
        .into_iter()
        .filter(|(method, defined_in)| {
            defined_in.len() == 1
                && everywhere.get(method) == in_blocks.get(method)
                && !STD_NAMES.contains(&method.as_str())
        })
        .map(|(method, defined_in)| (method, defined_in.into_iter().next().unwrap()))
        .collect()
}

/// Which modules each module calls a `Memory` method of (`.name(` or
/// `Memory::name(`), outside its tests.
fn method_calls(
    mods: &BTreeMap<String, Vec<std::path::PathBuf>>,
) -> BTreeMap<String, BTreeSet<String>> {
    let methods = memory_methods(mods);
    assert!(
        methods.get("change").map(String::as_str) == Some("store"),
        "the method reader lost `Memory::change`"
    );
    let call = regex_lite::Regex::new(r"(?:\.|Memory::)([a-z_][a-z0-9_]*)\(").unwrap();
    let mut graph = BTreeMap::new();
    for (name, files) in mods {
        let mut deps = BTreeSet::new();
        for file in files {
            let text = fs::read_to_string(file).unwrap();
            for c in call.captures_iter(code(&text)) {
                if let Some(owner) = methods.get(&c[1])
                    && owner != name
                {
                    deps.insert(owner.clone());
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
    let mut graph = imports(&mods);
    for (name, deps) in method_calls(&mods) {
        graph.entry(name).or_default().extend(deps);
    }
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
