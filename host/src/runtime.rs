//! [`Runtime`]: the engine and the compiled, pre-instantiated component.

use std::path::Path;
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::Duration;

use wasmtime::component::{Linker, ResourceTable};
use wasmtime::{Engine, EngineWeak, ResourceLimiter, Store, Trap};
use wasmtime_wasi::{WasiCtx, WasiCtxBuilder};

use crate::bindings::{AgentMemory, AgentMemoryPre, HostState};
use crate::engine_config::engine_config;
use crate::error::Limit;
use crate::memory::Memory;
use crate::options::{DEFAULT_CALL_TIMEOUT, DEFAULT_MAX_MEMORY_BYTES, OpenOptions};
use crate::types::ToolDefinition;
use crate::{COMPONENT_WASM, Error};

/// How often the engine's epoch advances; the granularity of call timeouts.
pub(crate) const EPOCH_TICK: Duration = Duration::from_millis(10);

/// The memory component compiled for this machine, ready to be instantiated
/// cheaply once per memory root with [`Runtime::open`].
///
/// Compiling takes tens of milliseconds (much more in a debug build), so make
/// one `Runtime` and keep it: [`Runtime::shared`] does that for the embedded
/// component. A `Runtime` is `Send + Sync`; each [`Memory`] it opens is
/// independent of it and of the others.
///
/// The pure helpers ([`estimate_tokens`](Self::estimate_tokens),
/// [`tool_definitions`](Self::tool_definitions), …) run in a private instance
/// that sees no directory at all, under the default limits (256 MiB, 30 s a
/// call); they are also available on [`Memory`].
///
/// The engine interrupts calls by epoch: a background thread named
/// `agent-memory-epoch` advances it every 10 ms while the engine lives.
pub struct Runtime {
    pub(crate) pre: AgentMemoryPre<HostState>,
    helper: Mutex<Option<Instance>>,
    origin: CodeOrigin,
}

/// Where a [`Runtime`]'s machine code came from ([`Runtime::code_origin`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum CodeOrigin {
    /// The artifact compiled when this crate was built and embedded in it:
    /// nothing was compiled. It is saved to the cache as well, which later
    /// processes load it from (mapped, not copied).
    Embedded,
    /// The compiled-component cache (`$AGENT_MEMORY_CACHE_DIR`, else the
    /// platform cache directory + `agent-memory`).
    Cache,
    /// Compiled by this process, then saved to the cache when there is one.
    Compiled,
}

/// The resource limits of one instance: its memory cap and call timeout,
/// and whether the cap was hit during the current call.
#[derive(Debug)]
pub(crate) struct Limits {
    max_memory_bytes: usize,
    call_timeout: Duration,
    memory_hit: bool,
}

impl Limits {
    pub(crate) fn new(max_memory_bytes: usize, call_timeout: Duration) -> Self {
        Limits {
            max_memory_bytes,
            call_timeout,
            memory_hit: false,
        }
    }
}

/// The memory cap, as the error a denied `memory.grow` traps with.
#[derive(Debug)]
struct MemoryCapHit;

impl std::fmt::Display for MemoryCapHit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the component's memory cap was reached")
    }
}

impl std::error::Error for MemoryCapHit {}

impl ResourceLimiter for Limits {
    fn memory_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired > self.max_memory_bytes {
            // Trap right here rather than let the guest see a failed grow:
            // Rust code aborts on it anyway, and the cause stays clear.
            self.memory_hit = true;
            return Err(wasmtime::Error::new(MemoryCapHit));
        }
        Ok(true)
    }

    fn table_growing(
        &mut self,
        _current: usize,
        _desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        Ok(true)
    }
}

/// A live instance of the component and the store it lives in.
pub(crate) struct Instance {
    pub(crate) store: Store<HostState>,
    pub(crate) bindings: AgentMemory,
}

impl Instance {
    /// Instantiates the component with the given WASI context and limits.
    pub(crate) fn new(
        pre: &AgentMemoryPre<HostState>,
        wasi: WasiCtx,
        limits: Limits,
    ) -> Result<Self, Error> {
        let state = HostState {
            wasi,
            table: ResourceTable::new(),
            limits,
            #[cfg(all(feature = "faults", unix))]
            faults: None,
        };
        let mut store = Store::new(pre.engine(), state);
        store.limiter(|state| &mut state.limits);
        store.epoch_deadline_trap();
        arm(&mut store);
        match pre.instantiate(&mut store) {
            Ok(bindings) => Ok(Instance { store, bindings }),
            Err(e) => Err(match limit_hit(&store, &e) {
                Some(limit) => Error::Limit {
                    operation: "instantiate",
                    limit,
                },
                None => Error::setup_wasmtime("cannot instantiate the memory component", e),
            }),
        }
    }

    /// Gets the store ready for one call: a fresh deadline, no limit hit.
    pub(crate) fn arm(&mut self) {
        arm(&mut self.store);
    }

    /// The error for a call that failed inside wasmtime: [`Error::Limit`]
    /// when one of our limits stopped it, else [`Error::Trap`]. The instance
    /// must not be entered again either way.
    pub(crate) fn failure(&self, operation: &'static str, error: wasmtime::Error) -> Error {
        match limit_hit(&self.store, &error) {
            Some(limit) => Error::Limit { operation, limit },
            None => Error::trap(operation, error),
        }
    }
}

fn arm(store: &mut Store<HostState>) {
    let limits = &mut store.data_mut().limits;
    limits.memory_hit = false;
    let timeout = limits.call_timeout;
    store.set_epoch_deadline(deadline_ticks(timeout));
}

/// Epoch ticks for `timeout`: rounded up, plus one because the first tick
/// may come at once.
fn deadline_ticks(timeout: Duration) -> u64 {
    let tick = EPOCH_TICK.as_nanos();
    let ticks = timeout.as_nanos().div_ceil(tick).saturating_add(1);
    u64::try_from(ticks).unwrap_or(u64::MAX)
}

fn limit_hit(store: &Store<HostState>, error: &wasmtime::Error) -> Option<Limit> {
    let limits = &store.data().limits;
    if limits.memory_hit || error.downcast_ref::<MemoryCapHit>().is_some() {
        return Some(Limit::Memory {
            max_bytes: limits.max_memory_bytes,
        });
    }
    if error.downcast_ref::<Trap>() == Some(&Trap::Interrupt) {
        return Some(Limit::Time {
            timeout: limits.call_timeout,
        });
    }
    None
}

/// Advances the engine's epoch every [`EPOCH_TICK`] until the engine is
/// dropped. Epoch interruption (not fuel) bounds calls: it costs a load and
/// compare at loop heads instead of counting every instruction.
fn spawn_epoch_ticker(engine: EngineWeak) -> Result<(), Error> {
    std::thread::Builder::new()
        .name("agent-memory-epoch".into())
        .spawn(move || {
            loop {
                std::thread::sleep(EPOCH_TICK);
                match engine.upgrade() {
                    Some(engine) => engine.increment_epoch(),
                    None => return,
                }
            }
        })
        .map(drop)
        .map_err(|e| Error::setup("cannot start the epoch thread", e))
}

/// A WASI context with nothing in it: no directories, no environment, no
/// arguments, no stdio, no network. Callers add what an instance needs.
pub(crate) fn sandbox() -> WasiCtxBuilder {
    let mut builder = WasiCtx::builder();
    builder
        .allow_tcp(false)
        .allow_udp(false)
        .allow_ip_name_lookup(false)
        // Calls are synchronous: do file I/O on the calling thread instead of
        // handing each operation to a tokio blocking thread and back, which
        // cost tens of microseconds per file operation (a search does several
        // per file).
        .allow_blocking_current_thread(true);
    builder
}

impl Runtime {
    /// Loads the component embedded in this crate ([`COMPONENT_WASM`]): the
    /// machine code compiled for it when the crate was built, when this
    /// machine and engine can run that; else from the compiled-component
    /// cache; else it compiles it (and caches the result).
    ///
    /// # Errors
    ///
    /// [`Error::Setup`] when the engine cannot be created or the component
    /// does not compile or link (neither should happen with the embedded one).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// let runtime = agent_memory::Runtime::new()?;
    /// # Ok::<(), agent_memory::Error>(())
    /// ```
    pub fn new() -> Result<Self, Error> {
        Self::compile(
            COMPONENT_WASM,
            Some(crate::COMPONENT_SHA256),
            crate::COMPONENT_CWASM,
            "the embedded memory component",
        )
    }

    /// Compiles a memory component read from `path` (a `.wasm` component that
    /// implements the `agent:memory/agent-memory` world).
    ///
    /// # Errors
    ///
    /// [`Error::Setup`], naming the path, when the file cannot be read, is not
    /// a component, or does not export the `agent-memory` world.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// let runtime = agent_memory::Runtime::from_file("agent_memory_component.wasm")?;
    /// # Ok::<(), agent_memory::Error>(())
    /// ```
    pub fn from_file(path: impl AsRef<Path>) -> Result<Self, Error> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|e| {
            Error::setup(
                format!("cannot read the memory component `{}`", path.display()),
                e,
            )
        })?;
        Self::compile(
            &bytes,
            None,
            &[],
            &format!("the memory component `{}`", path.display()),
        )
    }

    /// Compiles a memory component from its bytes.
    ///
    /// # Errors
    ///
    /// [`Error::Setup`] when the bytes are not a component or do not export
    /// the `agent-memory` world.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// let bytes = std::fs::read("agent_memory_component.wasm").unwrap();
    /// let runtime = agent_memory::Runtime::from_bytes(&bytes)?;
    /// # Ok::<(), agent_memory::Error>(())
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        Self::compile(bytes, None, &[], "the memory component")
    }

    /// A process-wide runtime for the embedded component, compiled on first
    /// use and reused afterwards.
    ///
    /// # Errors
    ///
    /// As [`Runtime::new`]; a failure is not cached, the next call tries again.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// let a = agent_memory::Runtime::shared()?;
    /// let b = agent_memory::Runtime::shared()?;
    /// assert!(std::ptr::eq(a, b));
    /// # Ok::<(), agent_memory::Error>(())
    /// ```
    pub fn shared() -> Result<&'static Runtime, Error> {
        static SHARED: OnceLock<Runtime> = OnceLock::new();
        static INIT: Mutex<()> = Mutex::new(());

        if let Some(runtime) = SHARED.get() {
            return Ok(runtime);
        }
        // Serialize the first compilation instead of racing several.
        let _guard = INIT.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(runtime) = SHARED.get() {
            return Ok(runtime);
        }
        let runtime = Runtime::new()?;
        Ok(SHARED.get_or_init(|| runtime))
    }

    /// `sha256`: the hex SHA-256 of `bytes` when known at build time (the
    /// embedded component); otherwise the cache computes it. `precompiled`:
    /// the build's artifact of `bytes`, or empty.
    fn compile(
        bytes: &[u8],
        sha256: Option<&str>,
        precompiled: &[u8],
        what: &str,
    ) -> Result<Self, Error> {
        let engine = Engine::new(&engine_config())
            .map_err(|e| Error::setup_wasmtime("cannot create the wasmtime engine", e))?;
        spawn_epoch_ticker(engine.weak())?;
        let (component, origin) = crate::cache::load_or_compile(
            &engine,
            bytes,
            sha256,
            precompiled,
            crate::cache::default_dir().as_deref(),
        )
        .map_err(|e| Error::setup_wasmtime(format!("cannot compile {what}"), e))?;

        let mut linker = Linker::<HostState>::new(&engine);
        wasmtime_wasi::p2::add_to_linker_sync(&mut linker)
            .map_err(|e| Error::setup_wasmtime("cannot add WASI to the linker", e))?;
        #[cfg(unix)]
        crate::readdir::shadow(&mut linker)
            .map_err(|e| Error::setup_wasmtime("cannot define read-directory", e))?;
        #[cfg(all(feature = "faults", unix))]
        crate::faults::shadow(&mut linker).map_err(|e| {
            Error::setup_wasmtime("cannot define the fault-injecting filesystem", e)
        })?;
        let pre = linker
            .instantiate_pre(&component)
            .and_then(AgentMemoryPre::new)
            .map_err(|e| Error::setup_wasmtime(format!("cannot link {what}"), e))?;
        Ok(Runtime {
            pre,
            helper: Mutex::new(None),
            origin,
        })
    }

    /// Where this runtime's machine code came from: the artifact embedded at
    /// build time, the compiled-component cache, or a compile by this
    /// process.
    pub fn code_origin(&self) -> CodeOrigin {
        self.origin
    }

    /// The names of the interfaces the component imports, sorted, e.g.
    /// `wasi:filesystem/types@0.2.x`: everything a host must provide, and so
    /// everything the component could ever reach. An audit can check it
    /// holds no `wasi:sockets` or `wasi:http`.
    pub fn imports(&self) -> Vec<String> {
        let component = self.pre.instance_pre().component();
        let mut names: Vec<String> = component
            .component_type()
            .imports(self.pre.engine())
            .map(|(name, _)| name.to_string())
            .collect();
        names.sort();
        names
    }

    /// Opens the memory stored under `options.root()` for `options.project()`:
    /// prepares the root directory, starts an instance of the component that
    /// can see only that directory (as `/`), and configures it for the project.
    ///
    /// # Errors
    ///
    /// - [`Error::Setup`], naming the path, when the root cannot be created,
    ///   resolved or opened, or is not a directory.
    /// - [`Error::Memory`] with [`ErrorKind::InvalidOptions`](crate::ErrorKind::InvalidOptions)
    ///   for an empty project path or one with NUL, an offset outside
    ///   `-1439..=1439`, or a cap of zero.
    /// - [`Error::Trap`] if the component traps, [`Error::Limit`] if it
    ///   exceeds a limit of `options`.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use agent_memory::{OpenOptions, Runtime};
    ///
    /// let root = agent_memory::default_root();
    /// let project = agent_memory::detect_project(std::env::current_dir().unwrap());
    /// let memory = Runtime::shared()?.open(OpenOptions::new(root, project))?;
    /// println!("project slug: {}", memory.project_slug());
    /// # Ok::<(), agent_memory::Error>(())
    /// ```
    pub fn open(&self, options: OpenOptions) -> Result<Memory, Error> {
        let mut memories = Memory::open_group(self.pre.clone(), vec![options])?;
        Ok(memories.pop().expect("one memory for one set of options"))
    }

    /// Opens several memories in one instance of the component, in the
    /// order given: each root is preopened in that instance at a directory
    /// of its own, and each memory reads and writes only its own root. One
    /// instance costs less than one each, but its memories share its fate:
    /// a trap or a limit in one restarts the instance, and every memory of
    /// the group transparently reopens on its next call. The instance gets
    /// the largest memory cap and call timeout among the options.
    ///
    /// # Errors
    ///
    /// As [`open`](Self::open), for the first memory that fails.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use agent_memory::{OpenOptions, Runtime};
    ///
    /// let mut memories = Runtime::shared()?.open_group(vec![
    ///     OpenOptions::new("/tmp/alice", "/src/app"),
    ///     OpenOptions::new("/tmp/bob", "/src/app"),
    /// ])?;
    /// let bob = memories.pop().unwrap();
    /// let alice = memories.pop().unwrap();
    /// # let _ = (alice, bob);
    /// # Ok::<(), agent_memory::Error>(())
    /// ```
    pub fn open_group(&self, options: Vec<OpenOptions>) -> Result<Vec<Memory>, Error> {
        Memory::open_group(self.pre.clone(), options)
    }

    /// The memory tool definitions (`memory_write`, `memory_read`,
    /// `memory_search`) with their JSON Schemas.
    ///
    /// # Errors
    ///
    /// [`Error::Trap`], [`Error::Limit`] or [`Error::Setup`] if the helper
    /// instance fails.
    pub fn tool_definitions(&self, set: crate::ToolSet) -> Result<Vec<ToolDefinition>, Error> {
        self.with_helper("tool-definitions", |store, b| {
            b.agent_memory_tools()
                .call_tool_definitions(store, set.into())
        })
        .map(|tools| tools.into_iter().map(Into::into).collect())
    }

    /// The system-prompt text that tells a model how to use the memory tools.
    ///
    /// # Errors
    ///
    /// [`Error::Trap`], [`Error::Limit`] or [`Error::Setup`] if the helper
    /// instance fails.
    pub fn usage_prompt(&self, set: crate::ToolSet) -> Result<String, Error> {
        self.with_helper("usage-prompt", |store, b| {
            b.agent_memory_tools().call_usage_prompt(store, set.into())
        })
    }

    /// The component's token estimate: one token per 4 bytes, rounded up.
    ///
    /// # Errors
    ///
    /// [`Error::Trap`], [`Error::Limit`] or [`Error::Setup`] if the helper
    /// instance fails.
    pub fn estimate_tokens(&self, text: &str) -> Result<u64, Error> {
        self.with_helper("estimate-tokens", |store, b| {
            b.agent_memory_prompt().call_estimate_tokens(store, text)
        })
    }

    /// A compaction reserve that accounts for the injected memory block:
    /// `base` plus the block's token estimate (`base` for `None`).
    ///
    /// # Errors
    ///
    /// [`Error::Trap`], [`Error::Limit`] or [`Error::Setup`] if the helper
    /// instance fails.
    pub fn effective_reserve(&self, base: u64, block: Option<&str>) -> Result<u64, Error> {
        self.with_helper("effective-reserve", |store, b| {
            b.agent_memory_prompt()
                .call_effective_reserve(store, base, block)
        })
    }

    /// `preamble`, then `\n\n---\n\n` and the block; `preamble` unchanged for
    /// `None` or an empty block.
    ///
    /// # Errors
    ///
    /// [`Error::Trap`], [`Error::Limit`] or [`Error::Setup`] if the helper
    /// instance fails.
    pub fn append_memory_block(
        &self,
        preamble: &str,
        block: Option<&str>,
    ) -> Result<String, Error> {
        self.with_helper("append-memory-block", |store, b| {
            b.agent_memory_prompt()
                .call_append_memory_block(store, preamble, block)
        })
    }

    /// `compaction summary (N msgs)`, or `compaction summary` for `None`.
    ///
    /// # Errors
    ///
    /// [`Error::Trap`], [`Error::Limit`] or [`Error::Setup`] if the helper
    /// instance fails.
    pub fn compaction_heading(&self, message_count: Option<u32>) -> Result<String, Error> {
        self.with_helper("compaction-heading", |store, b| {
            b.agent_memory_prompt()
                .call_compaction_heading(store, message_count)
        })
    }

    /// Runs `call` in the directory-less helper instance, starting it if
    /// needed and dropping it if it traps.
    fn with_helper<R>(
        &self,
        operation: &'static str,
        call: impl FnOnce(&mut Store<HostState>, &AgentMemory) -> wasmtime::Result<R>,
    ) -> Result<R, Error> {
        let mut helper = self.helper.lock().unwrap_or_else(PoisonError::into_inner);
        let instance = match &mut *helper {
            Some(instance) => instance,
            empty => empty.insert(Instance::new(
                &self.pre,
                sandbox().build(),
                Limits::new(DEFAULT_MAX_MEMORY_BYTES, DEFAULT_CALL_TIMEOUT),
            )?),
        };
        instance.arm();
        match call(&mut instance.store, &instance.bindings) {
            Ok(value) => Ok(value),
            Err(e) => {
                let error = instance.failure(operation, e);
                *helper = None;
                Err(error)
            }
        }
    }
}

impl std::fmt::Debug for Runtime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runtime")
            .field("code_origin", &self.origin)
            .finish_non_exhaustive()
    }
}
