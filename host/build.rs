//! Builds the guest component (`guest/component`) for `wasm32-wasip2` so the
//! library can embed it with `include_bytes!`, and hashes it so a start never
//! has to: the compiled-component cache names artifacts by that SHA-256.
//!
//! With the `precompile` feature (the CLI's default) an optimized build then
//! compiles the component for this machine with the runtime's own engine
//! settings (`src/engine_config.rs`), so the library embeds that machine code
//! too and the first start of a fresh install compiles nothing. The compiler
//! is `precompiler/`, a small program on the same wasmtime, built in release
//! by a nested cargo into `target/precompiler`: as a build dependency,
//! wasmtime and Cranelift would be built a second time in every build, debug
//! and `cargo clippy` included, and unoptimized (build dependencies get their
//! own features and profile), so compiling the component would take minutes.
//!
//! `AGENT_MEMORY_PRECOMPILE=0` turns it off, `=1` on in debug builds too (a
//! debug build skips it by default: tests and CI exercise the cache path). A
//! cross-compiled build never precompiles: the code would be for the build
//! machine. When the precompiler cannot be built or run, the build says so
//! in a warning and goes on without the artifact; the runtime then compiles
//! at its first start and caches the result. CI builds debug only, so it never
//! builds the precompiler; `AGENT_MEMORY_PRECOMPILE=1 cargo test -p
//! agent-memory --features precompile --lib cache` checks that the runtime's
//! engine accepts its artifact (`the_embedded_artifact_loads_into_the_runtimes_engine`).

use std::env;
use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use sha2::{Digest, Sha256};

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
        "host/src/engine_config.rs",
        "host/precompiler/src",
        "host/precompiler/Cargo.toml",
        "host/precompiler/Cargo.lock",
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
        precompiled(&cargo, &workspace, &embedded, &cwasm)
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

/// Whether to precompile: never when `AGENT_MEMORY_PRECOMPILE=0` or when the
/// build targets another machine than the one it runs on; otherwise in
/// optimized builds, and in debug builds too when `AGENT_MEMORY_PRECOMPILE=1`.
#[cfg(feature = "precompile")]
fn precompile() -> bool {
    println!("cargo:rerun-if-env-changed={PRECOMPILE_ENV}");
    let target = env::var("TARGET").unwrap_or_default();
    let host = env::var("HOST").unwrap_or_default();
    let optimized = env::var("OPT_LEVEL").is_ok_and(|level| level != "0");
    match env::var(PRECOMPILE_ENV).as_deref() {
        Ok("0") => false,
        Ok("1") => target == host,
        Err(_) => target == host && optimized,
        Ok(other) => panic!("{PRECOMPILE_ENV} must be 0 or 1, not {other:?}"),
    }
}

/// The component at `wasm` compiled by `precompiler/` (built first, in
/// release, into `target/precompiler`) and written to `cwasm`; empty, with a
/// warning, when that fails.
#[cfg(feature = "precompile")]
fn precompiled(cargo: &OsString, workspace: &Path, wasm: &Path, cwasm: &Path) -> Vec<u8> {
    let manifest = workspace
        .join("host")
        .join("precompiler")
        .join("Cargo.toml");
    let target_dir = workspace.join("target").join("precompiler");
    let mut build = Command::new(cargo);
    build
        .arg("build")
        .arg("--release")
        .arg("--manifest-path")
        .arg(&manifest)
        .arg("--target-dir")
        .arg(&target_dir);
    strip_outer_build_config(&mut build);
    let output = run(&mut build, "build the precompiler");
    if !output.status.success() {
        println!(
            "cargo:warning=not embedding a precompiled component: building `{}` failed ({}); \
             the first start will compile it: {}",
            manifest.display(),
            output.status,
            last_line(&output.stderr)
        );
        return Vec::new();
    }
    let exe = target_dir.join("release").join(format!(
        "agent-memory-precompiler{}",
        env::consts::EXE_SUFFIX
    ));
    let output = run(
        Command::new(&exe).arg(wasm).arg(cwasm),
        "run the precompiler",
    );
    if !output.status.success() {
        println!(
            "cargo:warning=not embedding a precompiled component: `{}` failed ({}); \
             the first start will compile it: {}",
            exe.display(),
            output.status,
            last_line(&output.stderr)
        );
        return Vec::new();
    }
    fs::read(cwasm).unwrap_or_else(|e| {
        panic!(
            "the precompiler succeeded but `{}` cannot be read: {e}",
            cwasm.display()
        )
    })
}

/// The last non-empty line of a command's stderr, for a one-line warning.
#[cfg(feature = "precompile")]
fn last_line(stderr: &[u8]) -> String {
    String::from_utf8_lossy(stderr)
        .lines()
        .rev()
        .find(|line| !line.trim().is_empty())
        .unwrap_or("no output")
        .trim()
        .to_owned()
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
