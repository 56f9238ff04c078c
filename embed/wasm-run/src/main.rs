//! `agent-memory-embed-wasm-run COMMAND.wasm ARGS…` runs a WASI command component under the
//! workspace's wasmtime, with the current directory preopened read-only as `.`.
//!
//! The guest's monotonic clock is this thread's CPU time: the machine it was written for is
//! shared by several builds, so wall time says more about the neighbours than about the code,
//! and WASI has no CPU clock of its own. The guest runs on this thread, so the intervals it
//! measures with `Instant` are its own CPU time. Peak RSS of the whole process (wasmtime,
//! compiled code and linear memory) is printed at the end. With `WASM_RUN_PERFMAP` set,
//! wasmtime writes a perf map so that `perf record`/`perf report` name the guest's functions.

use wasmtime::component::{Component, Linker, ResourceTable};
use wasmtime::{Engine, Store};
use wasmtime_wasi::p2::bindings::sync::Command;
use wasmtime_wasi::{FsPerms, HostMonotonicClock, WasiCtx, WasiCtxView, WasiView};

struct State {
    ctx: WasiCtx,
    table: ResourceTable,
}

impl WasiView for State {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.ctx,
            table: &mut self.table,
        }
    }
}

/// Nanoseconds of CPU this thread has used.
struct ThreadCpu;

impl HostMonotonicClock for ThreadCpu {
    fn resolution(&self) -> u64 {
        1
    }
    fn now(&self) -> u64 {
        std::fs::read_to_string("/proc/thread-self/schedstat")
            .ok()
            .and_then(|s| s.split_whitespace().next()?.parse().ok())
            .unwrap_or(0)
    }
}

fn peak_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    Some(line.split_whitespace().nth(1)?.parse::<f64>().ok()? / 1024.0)
}

fn main() -> wasmtime::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: agent-memory-embed-wasm-run COMMAND.wasm ARGS…");
        std::process::exit(2);
    };
    // WASM_RUN_PERFMAP=1 writes /tmp/perf-PID.map so that `perf report` names wasm functions.
    let perfmap = std::env::var_os("WASM_RUN_PERFMAP").is_some();
    let mut config = wasmtime::Config::new();
    if perfmap {
        config.profiler(wasmtime::ProfilingStrategy::PerfMap);
    }
    let engine = Engine::new(&config)?;
    let t = std::time::Instant::now();
    // Compiling takes longer than many runs measure; keep the machine code beside the wasm
    // and reuse it while it is newer than the wasm.
    let cwasm = format!("{path}.cwasm");
    let modified = |p: &str| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    let component = match (modified(&cwasm), modified(path)) {
        // SAFETY: the file was written by `serialize` below, by this same engine build.
        (Some(c), Some(w)) if c > w && !perfmap => unsafe {
            Component::deserialize_file(&engine, &cwasm)?
        },
        _ => {
            let c = Component::from_file(&engine, path)
                .map_err(|e| e.context(format!("failed to load `{path}`")))?;
            std::fs::write(&cwasm, c.serialize()?)?;
            c
        }
    };
    eprintln!(
        "wasm-run: loaded `{path}` in {:.1} s (wall)",
        t.elapsed().as_secs_f64()
    );
    let mut linker = Linker::<State>::new(&engine);
    wasmtime_wasi::p2::add_to_linker_sync(&mut linker)?;
    let mut wasi = WasiCtx::builder();
    wasi.inherit_stdio()
        .inherit_env()
        .args(&args)
        .monotonic_clock(ThreadCpu)
        .preopened_dir(".", ".", FsPerms::ReadOnly)?;
    let mut store = Store::new(
        &engine,
        State {
            ctx: wasi.build(),
            table: ResourceTable::new(),
        },
    );
    let command = Command::instantiate(&mut store, &component, &linker)?;
    let result = command.wasi_cli_run().call_run(&mut store)?;
    eprintln!(
        "wasm-run: guest clock was thread CPU time; peak rss of this process {:.1} MiB",
        peak_rss_mib().unwrap_or(f64::NAN)
    );
    if result.is_err() {
        std::process::exit(1);
    }
    Ok(())
}
