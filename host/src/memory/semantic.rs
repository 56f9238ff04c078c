//! Semantic recall through the component's `semantic` interface: the host
//! hands the weights file's bytes to the instance, which loads the model
//! and enables it on this memory. The setting is kept per memory and
//! applied again whenever a fresh instance opens it.

use std::sync::{Arc, PoisonError};

use wasmtime::Store;
use wasmtime::component::ResourceAny;

use super::{Group, Memory, domain};
use crate::bindings::{AgentMemory, HostState};
use crate::error::Error;

/// What the host set for one memory.
#[derive(Clone)]
pub(crate) enum Setting {
    /// On, with the bytes of this weights file.
    On(Arc<Vec<u8>>),
    /// Off, for this reason.
    Off(String),
}

/// Whether semantic recall is on, with which model, how far indexing is,
/// or why it is off.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SemanticStatus {
    /// A model is set on this memory.
    pub on: bool,
    /// The model's name and the start of its weights' sha256.
    pub model: Option<String>,
    /// Chunks search covers.
    pub chunks: u32,
    /// Of those, chunks with a vector.
    pub ready: u32,
    /// Why recall is off, when it is.
    pub why_off: Option<String>,
}

impl SemanticStatus {
    /// Whole percent of chunks with a vector (100 when there are none).
    pub fn percent(&self) -> u32 {
        match self.chunks {
            0 => 100,
            n => (u64::from(self.ready) * 100 / u64::from(n)) as u32,
        }
    }

    /// `semantic: on, all-MiniLM-L6-v2 (int8, …), 1200 chunks, 100% indexed`
    /// or `semantic: off (why)`.
    pub fn line(&self) -> String {
        match (&self.model, self.on) {
            (Some(model), true) => format!(
                "semantic: on, {model}, {} chunk{}, {}% indexed",
                self.chunks,
                if self.chunks == 1 { "" } else { "s" },
                self.percent()
            ),
            _ => format!(
                "semantic: off ({})",
                self.why_off
                    .as_deref()
                    .unwrap_or("no embedding model was given")
            ),
        }
    }
}

impl From<crate::bindings::exports::agent::memory::semantic::SemanticStatus> for SemanticStatus {
    fn from(s: crate::bindings::exports::agent::memory::semantic::SemanticStatus) -> Self {
        SemanticStatus {
            on: s.on,
            model: s.model,
            chunks: s.chunks,
            ready: s.ready,
            why_off: s.why_off,
        }
    }
}

impl Memory {
    /// Turn semantic recall on with the weights file's bytes (see
    /// `embed/scripts/derive.py`). The component loads the model now (about
    /// half a second) and again whenever a fresh instance opens this memory.
    ///
    /// # Errors
    /// [`Error::Memory`] with kind `InvalidOptions` when the bytes are not a
    /// weights file; recall is then off and says why.
    pub fn enable_semantic(&mut self, weights: Arc<Vec<u8>>) -> Result<(), Error> {
        self.set_semantic(Setting::On(weights))
    }

    /// Turn semantic recall off, saying why; ranked search is then exactly
    /// lexical.
    ///
    /// # Errors
    /// As any call: a trap or a limit of the instance.
    pub fn disable_semantic(&mut self, why: &str) -> Result<(), Error> {
        self.set_semantic(Setting::Off(why.to_owned()))
    }

    fn set_semantic(&mut self, setting: Setting) -> Result<(), Error> {
        let mut group = self.group.lock().unwrap_or_else(PoisonError::into_inner);
        group.members[self.index].semantic = Some(setting);
        // Applied by `ensure_open` to a handle it opens; an open handle is
        // given it here.
        let opened = group.members[self.index].handle.is_some();
        self.info = group.ensure_open(self.index)?;
        if opened {
            let handle = group.members[self.index]
                .handle
                .expect("ensure_open leaves the handle open");
            group.apply_semantic(self.index, handle)?;
        }
        Ok(())
    }

    /// Whether semantic recall is on, the model and how far indexing is.
    ///
    /// # Errors
    /// As any call: a trap or a limit of the instance.
    pub fn semantic_status(&mut self) -> Result<SemanticStatus, Error> {
        self.call_semantic("semantic-status", |store, b, h| {
            b.agent_memory_semantic().call_get_status(store, h)
        })
        .map(Into::into)
    }

    /// Embed up to `limit` chunks without a vector (all when `None`) and
    /// save them. Call it in rounds of a few dozen to show progress and stay
    /// inside the call timeout.
    ///
    /// # Errors
    /// As any call: a trap or a limit of the instance.
    pub fn index_vectors(&mut self, limit: Option<u32>) -> Result<SemanticStatus, Error> {
        self.call_semantic("semantic-index", |store, b, h| {
            b.agent_memory_semantic().call_index(store, h, limit)
        })
        .map(Into::into)
    }

    /// One call of the `semantic` interface on this memory's handle.
    fn call_semantic<R>(
        &mut self,
        operation: &'static str,
        call: impl FnOnce(&mut Store<HostState>, &AgentMemory, ResourceAny) -> wasmtime::Result<R>,
    ) -> Result<R, Error> {
        let mut group = self.group.lock().unwrap_or_else(PoisonError::into_inner);
        self.info = group.ensure_open(self.index)?;
        let handle = group.members[self.index]
            .handle
            .expect("ensure_open leaves the handle open");
        let instance = group
            .live
            .as_mut()
            .expect("ensure_open starts the instance");
        instance.arm();
        let result = call(&mut instance.store, &instance.bindings, handle);
        group.settle(operation, result)
    }
}

impl Group {
    /// Give the memory at `index`, open as `handle`, its semantic setting.
    pub(super) fn apply_semantic(
        &mut self,
        index: usize,
        handle: ResourceAny,
    ) -> Result<(), Error> {
        let Some(setting) = self.members[index].semantic.clone() else {
            return Ok(());
        };
        let instance = self.live.as_mut().expect("the memory is open");
        instance.arm();
        let exports = instance.bindings.agent_memory_semantic();
        let result = match &setting {
            Setting::Off(why) => exports
                .call_disable(&mut instance.store, handle, why)
                .map(Ok),
            Setting::On(weights) => (|| {
                let model = exports.model().call_load(&mut instance.store, weights)?;
                let model = match model {
                    Ok(m) => m,
                    Err(e) => return Ok(Err(e)),
                };
                let r = exports.call_enable(&mut instance.store, handle, model);
                model.resource_drop(&mut instance.store)?;
                r.map(Ok)
            })(),
        };
        let refused = self.settle("semantic-enable", result)?;
        if let Err(e) = refused {
            let why = format!("the weights were refused: {}", e.message);
            self.members[index].semantic = Some(Setting::Off(why.clone()));
            let instance = self.live.as_mut().expect("the memory is open");
            instance.arm();
            let result = instance.bindings.agent_memory_semantic().call_disable(
                &mut instance.store,
                handle,
                &why,
            );
            self.settle("semantic-disable", result)?;
            return Err(domain(e));
        }
        Ok(())
    }
}
