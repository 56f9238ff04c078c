//! The one wasmtime configuration the runtime compiles with. host/build.rs
//! includes this file too (`#[path]`), so the artifact it precompiles comes
//! from an engine set up exactly like the one that loads it: wasmtime refuses
//! an artifact whose settings differ, and the runtime would then compile.

/// The engine configuration of every [`Runtime`](crate::Runtime): epoch
/// interruption (the call timeout), everything else wasmtime's default.
pub(crate) fn engine_config() -> wasmtime::Config {
    let mut config = wasmtime::Config::new();
    config.epoch_interruption(true);
    config
}
