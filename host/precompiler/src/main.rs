//! `agent-memory-precompiler COMPONENT OUTPUT`: compiles the component at
//! COMPONENT for this machine with the host library's engine settings
//! (`host/src/engine_config.rs`, included as it is) and writes the artifact
//! to OUTPUT, as [`wasmtime::Engine::precompile_component`] makes it.
//!
//! It keeps the last artifact beside OUTPUT, named by the component's
//! SHA-256 and wasmtime's compatibility hash of the engine, so a rerun for an
//! unchanged component and engine copies instead of compiling.

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::{env, fs};

#[path = "../../src/engine_config.rs"]
mod engine_config;

fn main() -> ExitCode {
    let args: Vec<PathBuf> = env::args_os().skip(1).map(PathBuf::from).collect();
    let [component, output] = args.as_slice() else {
        eprintln!("usage: agent-memory-precompiler COMPONENT OUTPUT");
        return ExitCode::from(2);
    };
    match precompile(component, output) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("agent-memory-precompiler: {message}");
            ExitCode::FAILURE
        }
    }
}

fn precompile(component: &Path, output: &Path) -> Result<(), String> {
    let bytes = fs::read(component)
        .map_err(|e| format!("cannot read the component `{}`: {e}", component.display()))?;
    let engine = wasmtime::Engine::new(&engine_config::engine_config())
        .map_err(|e| format!("cannot create the wasmtime engine: {e}"))?;
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    bytes.hash(&mut hasher);
    engine.precompile_compatibility_hash().hash(&mut hasher);
    let file_name = output
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| format!("the output `{}` has no file name", output.display()))?;
    let kept = output.with_file_name(format!("{file_name}.{:016x}", hasher.finish()));
    let artifact = match fs::read(&kept) {
        Ok(artifact) => artifact,
        Err(_) => {
            let artifact = engine.precompile_component(&bytes).map_err(|e| {
                format!(
                    "cannot compile the component `{}`: {e}",
                    component.display()
                )
            })?;
            remove_kept(output, file_name);
            fs::write(&kept, &artifact)
                .map_err(|e| format!("cannot write `{}`: {e}", kept.display()))?;
            artifact
        }
    };
    fs::write(output, &artifact).map_err(|e| format!("cannot write `{}`: {e}", output.display()))
}

/// Removes the artifacts kept for other components or engines: they would
/// only pile up.
fn remove_kept(output: &Path, file_name: &str) {
    let Some(dir) = output.parent() else { return };
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let prefix = format!("{file_name}.");
    for entry in entries.flatten() {
        if entry
            .file_name()
            .to_str()
            .is_some_and(|n| n.starts_with(&prefix))
        {
            let _ = fs::remove_file(entry.path());
        }
    }
}
