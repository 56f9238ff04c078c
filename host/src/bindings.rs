//! Generated bindings for the `agent-memory` world and the store state the
//! component runs with. Nothing here is public: the crate exposes its own types.

wasmtime::component::bindgen!({
    path: "../wit",
    world: "agent-memory",
});

pub(crate) use exports::agent::memory::store::Guest as StoreExports;
pub(crate) use exports::agent::memory::types as wit;

use wasmtime::component::ResourceTable;
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

/// What a [`wasmtime::Store`] holds for one instance: its WASI context,
/// resource table and resource limits.
pub(crate) struct HostState {
    pub(crate) wasi: WasiCtx,
    pub(crate) table: ResourceTable,
    pub(crate) limits: crate::runtime::Limits,
    /// The calls to count and fail, in test builds (`faults.rs`).
    #[cfg(all(feature = "faults", unix))]
    pub(crate) faults: Option<std::sync::Arc<crate::faults::Faults>>,
}

impl WasiView for HostState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.wasi,
            table: &mut self.table,
        }
    }
}
