//! Builds the guest component (`guest/component`) for `wasm32-wasip2` so the
//! library can embed it with `include_bytes!`, and hashes it so a start never
//! has to: the compiled-component cache names artifacts by that SHA-256.
//!
//! With the `precompile` feature it then compiles the component for this
//! machine with the runtime's own engine settings (`src/engine_config.rs`),
//! so the library embeds that machine code too and the first start of a
//! fresh install compiles nothing. `AGENT_MEMORY_PRECOMPILE=0` turns that off
//! again. A cross-compiled build never precompiles: the code would be for the
//! build machine. Without it the embedded artifact is empty, and the runtime
//! compiles (and caches) at its first start.

use std::env;
use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use sha2::{Digest, Sha256};

#[cfg(feature = "precompile")]
#[path = "src/engine_config.rs"]
mod engine_config;

const WASM_TARGET: &str = "wasm32-wasip2";
const WASM_FILE: &str = "agent_memory_component.wasm";
const CWASM_FILE: &str = "agent_memory_component.cwasm";
#[cfg(feature = "precompile")]
const PRECOMPILE_ENV: &str = "AGENT_MEMORY_PRECOMPILE";

fn main() {
    let manifest_dir =
        PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let workspace = manifest_dir
        .parent()
        .expect("host/ lives inside the workspace")
        .to_path_buf();

    for path in [
        "guest/core/src",
        "guest/core/Cargo.toml",
        "guest/component/src",
        "guest/component/Cargo.toml",
        "guest/component/Cargo.lock",
        "vocab/src",
        "vocab/Cargo.toml",
        "embed/src",
        "embed/Cargo.toml",
        "wit",
        ".cargo/config.toml",
    ] {
        println!("cargo:rerun-if-changed={}", workspace.join(path).display());
    }

    check_wasm_target();

    let cargo = env::var_os("CARGO").unwrap_or_else(|| OsString::from("cargo"));
    let target_dir = workspace.join("target").join("guest");
    let manifest = workspace.join("guest").join("component").join("Cargo.toml");

    let mut command = Command::new(&cargo);
    command
        .arg("build")
        .arg("--release")
        .arg("--target")
        .arg(WASM_TARGET)
        .arg("--manifest-path")
        .arg(&manifest)
        // Never the outer target dir: the outer cargo holds its lock, and a
        // nested cargo waiting for it deadlocks.
        .arg("--target-dir")
        .arg(&target_dir);
    strip_outer_build_config(&mut command);

    let output = run(&mut command, "build the guest component");
    if !output.status.success() {
        panic!(
            "building the guest component failed ({}):\n{}\n{}",
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }

    let wasm = target_dir.join(WASM_TARGET).join("release").join(WASM_FILE);
    if !wasm.is_file() {
        panic!(
            "the guest build succeeded but `{}` does not exist",
            wasm.display()
        );
    }

    // Embed a copy in OUT_DIR and hash that copy's bytes: the digest is of
    // exactly what `include_bytes!` embeds, even if another build rewrites
    // the guest's target dir in between.
    let bytes = fs::read(&wasm)
        .unwrap_or_else(|e| panic!("cannot read the guest component `{}`: {e}", wasm.display()));
    let out_dir = PathBuf::from(env::var_os("OUT_DIR").expect("OUT_DIR"));
    let embedded = out_dir.join(WASM_FILE);
    if fs::read(&embedded).ok().as_deref() != Some(&bytes[..]) {
        fs::write(&embedded, &bytes).unwrap_or_else(|e| {
            panic!(
                "cannot copy the guest component to `{}`: {e}",
                embedded.display()
            )
        });
    }
    let sha256: String = Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    println!(
        "cargo:rustc-env=AGENT_MEMORY_COMPONENT_WASM={}",
        embedded.display()
    );
    println!("cargo:rustc-env=AGENT_MEMORY_COMPONENT_SHA256={sha256}");

    let cwasm = out_dir.join(CWASM_FILE);
    #[cfg(feature = "precompile")]
    let artifact = if precompile() {
        precompiled(&bytes, &sha256, &out_dir)
    } else {
        Vec::new()
    };
    #[cfg(not(feature = "precompile"))]
    let artifact = Vec::new();
    if fs::read(&cwasm).ok().as_deref() != Some(&artifact[..]) {
        fs::write(&cwasm, &artifact).unwrap_or_else(|e| {
            panic!(
                "cannot write the precompiled component `{}`: {e}",
                cwasm.display()
            )
        });
    }
    println!(
        "cargo:rustc-env=AGENT_MEMORY_COMPONENT_CWASM={}",
        cwasm.display()
    );
}

/// Whether to precompile: unless `AGENT_MEMORY_PRECOMPILE=0`, and never
/// when the build targets another machine than the one it runs on.
#[cfg(feature = "precompile")]
fn precompile() -> bool {
    println!("cargo:rerun-if-env-changed={PRECOMPILE_ENV}");
    let target = env::var("TARGET").unwrap_or_default();
    let host = env::var("HOST").unwrap_or_default();
    match env::var(PRECOMPILE_ENV).as_deref() {
        Ok("0") => false,
        Ok("1") | Err(_) => target == host,
        Ok(other) => panic!("{PRECOMPILE_ENV} must be 0 or 1, not {other:?}"),
    }
}

/// The component compiled by an engine configured as the runtime's. Kept in
/// `OUT_DIR` under the digest of the component and wasmtime's compatibility
/// hash of the engine, so a rerun of this script for an unchanged component
/// and engine does not compile again.
#[cfg(feature = "precompile")]
fn precompiled(bytes: &[u8], sha256: &str, out_dir: &Path) -> Vec<u8> {
    use std::hash::{Hash, Hasher};

    let engine = wasmtime::Engine::new(&engine_config::engine_config())
        .unwrap_or_else(|e| panic!("cannot create the wasmtime engine to precompile: {e}"));
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    engine.precompile_compatibility_hash().hash(&mut hasher);
    let kept = out_dir.join(format!("{CWASM_FILE}.{sha256}-{:016x}", hasher.finish()));
    if let Ok(artifact) = fs::read(&kept) {
        return artifact;
    }
    let artifact = engine
        .precompile_component(bytes)
        .unwrap_or_else(|e| panic!("cannot precompile the guest component: {e}"));
    // Artifacts of other components or engines would only pile up.
    let stale = format!("{CWASM_FILE}.");
    if let Ok(entries) = fs::read_dir(out_dir) {
        for entry in entries.flatten() {
            if entry
                .file_name()
                .to_str()
                .is_some_and(|n| n.starts_with(&stale))
            {
                let _ = fs::remove_file(entry.path());
            }
        }
    }
    fs::write(&kept, &artifact)
        .unwrap_or_else(|e| panic!("cannot write `{}`: {e}", kept.display()));
    artifact
}

/// Stops the build with the fix when the toolchain that builds us lacks the
/// `wasm32-wasip2` target. rustup adds it from `rust-toolchain.toml` on the
/// first cargo command, except when automatic installation is off.
fn check_wasm_target() {
    let rustc = env::var_os("RUSTC").unwrap_or_else(|| OsString::from("rustc"));
    let output = run(
        Command::new(&rustc).args(["--print", "target-libdir", "--target", WASM_TARGET]),
        "ask rustc for the wasm32-wasip2 target directory",
    );
    let libdir = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    if output.status.success() && !libdir.is_empty() && Path::new(&libdir).is_dir() {
        return;
    }
    panic!(
        "the `{WASM_TARGET}` Rust target is not installed for {}: run `rustup target add {WASM_TARGET}` \
         (rust-toolchain.toml lists it, but rustup does not add it when RUSTUP_AUTO_INSTALL=0 or \
         `rustup set auto-install disable`)",
        Path::new(&rustc).display()
    );
}

/// Removes the variables through which the outer build's configuration
/// (flags, target, target dir, clippy) would leak into the guest build.
fn strip_outer_build_config(command: &mut Command) {
    const KEEP: &[&str] = &[
        "CARGO_HOME",
        "CARGO_MAKEFLAGS",
        "CARGO_NET_",
        "CARGO_HTTP_",
        "CARGO_REGISTRIES_",
        "CARGO_REGISTRY_",
        "CARGO_TERM_",
    ];
    const REMOVE: &[&str] = &[
        "RUSTFLAGS",
        "RUSTDOCFLAGS",
        "RUSTC_WORKSPACE_WRAPPER",
        "CLIPPY_ARGS",
        "CLIPPY_CONF_DIR",
        "TARGET",
        "HOST",
        "OUT_DIR",
        "OPT_LEVEL",
        "PROFILE",
        "DEBUG",
        "NUM_JOBS",
    ];
    for (key, _) in env::vars_os() {
        let Some(key) = key.to_str() else { continue };
        let leaks_cargo_config = (key.starts_with("CARGO") || key.starts_with("__CARGO"))
            && !KEEP.iter().any(|keep| key.starts_with(keep));
        if leaks_cargo_config || REMOVE.contains(&key) {
            command.env_remove(key);
        }
    }
}

fn run(command: &mut Command, what: &str) -> Output {
    match command.output() {
        Ok(output) => output,
        Err(error) => panic!("failed to {what}: could not run {command:?}: {error}"),
    }
}
