//! `agent-memory mcp`: the memory as a Model Context Protocol server on
//! stdin/stdout, for agents that speak MCP (Claude Code, Codex, ...).
//!
//! - Tools: the set chosen with `--tools` (`full` by default: the seed's
//!   three, the curation tools, `memory_batch` and `memory_consolidate`;
//!   `seed`; or `anthropic`, just `memory`), with the names,
//!   descriptions and JSON Schemas the component itself defines
//!   (`tools.tool-definitions`); calls go to `memory.call-tool` unchanged. A
//!   refusal of the memory comes back as a tool result with `isError` and
//!   `<kind>: <message>`, so the model can correct its call; only a tool name
//!   the server does not have is a protocol error.
//! - Resource `memory://context`: the `<memory>` block for the system prompt
//!   (empty text when there is nothing to show).
//! - Prompt `memory`: the usage prompt followed by the context block.
//! - Prompt `consolidate`: the consolidation plan (`memory_consolidate`),
//!   to answer with one `memory_batch`; an empty memory is an
//!   invalid-params error saying so.
//! - The usage prompt is also the server's `instructions`.
//! - While memory is turned off (`AGENT_MEMORY_DISABLE`, the config file) the
//!   server still offers the same tools, but no component is loaded: every
//!   call answers, as a plain result, that memory is off; the context is
//!   empty and the instructions say so.
//! - The component sees the exact text of a call's `arguments`, as the
//!   command line does: the JSON-RPC layer would keep only the last of two
//!   equal keys, so a filter between stdin and the protocol library hands the
//!   raw text through (see [`RAW_ARGUMENTS`]), and a repeated field is
//!   refused the same way everywhere.

use std::sync::{Arc, Mutex};

use agent_memory::{Disabled, Error, Memory, Runtime, ToolSet};
use anyhow::{Context as _, Result};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, GetPromptRequestParams,
    GetPromptResponse, GetPromptResult, Implementation, JsonObject, ListPromptsResult,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, Prompt, PromptMessage,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource,
    ResourceContents, Role, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};

/// The name of the consolidation prompt.
const CONSOLIDATE_PROMPT: &str = "consolidate";

/// The URI of the context block resource.
const CONTEXT_URI: &str = "memory://context";
/// The name of the prompt that carries the usage prompt and the block.
const PROMPT_NAME: &str = "memory";

/// The one key of the `arguments` object the stdin filter puts in a
/// `tools/call` message: its value is the JSON text the client sent as
/// `arguments`, byte for byte. A client cannot forge it to any effect: its
/// own `arguments` always travel as text under this key.
const RAW_ARGUMENTS: &str = "agent-memory/raw-arguments";

/// One JSON-RPC message from the client, with `tools/call` arguments
/// replaced by their raw text; any other line unchanged.
fn pass_raw_arguments(line: &str) -> String {
    #[derive(serde::Deserialize)]
    struct Message<'a> {
        method: Option<String>,
        #[serde(borrow)]
        params: Option<Params<'a>>,
    }
    #[derive(serde::Deserialize)]
    struct Params<'a> {
        #[serde(borrow)]
        arguments: Option<&'a serde_json::value::RawValue>,
    }
    let Ok(message) = serde_json::from_str::<Message>(line) else {
        return line.to_string();
    };
    let raw = match message {
        Message {
            method: Some(method),
            params: Some(Params {
                arguments: Some(raw),
            }),
        } if method == "tools/call" => raw.get().to_string(),
        _ => return line.to_string(),
    };
    let Ok(mut value) = serde_json::from_str::<serde_json::Value>(line) else {
        return line.to_string();
    };
    value["params"]["arguments"] = serde_json::json!({ RAW_ARGUMENTS: raw });
    value.to_string()
}

/// The arguments text for the component: the raw text the filter passed,
/// else the object as the protocol library parsed it.
fn arguments_text(arguments: Option<JsonObject>) -> String {
    match arguments {
        Some(map) if map.len() == 1 => match map.get(RAW_ARGUMENTS) {
            Some(serde_json::Value::String(raw)) => raw.clone(),
            _ => serde_json::Value::Object(map).to_string(),
        },
        other => serde_json::Value::Object(other.unwrap_or_default()).to_string(),
    }
}

/// Copies stdin to `sink` line by line through [`pass_raw_arguments`].
async fn filter_stdin(sink: tokio::io::DuplexStream) -> std::io::Result<()> {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    let mut sink = sink;
    while let Some(line) = lines.next_line().await? {
        sink.write_all(pass_raw_arguments(&line).as_bytes()).await?;
        sink.write_all(b"\n").await?;
    }
    sink.shutdown().await
}

/// What the server serves: an open memory, or the answer that memory is off.
pub enum Backend {
    /// Memory is on.
    Memory(Box<Memory>),
    /// Memory is turned off: nothing is opened.
    Disabled(&'static Runtime, Disabled),
}

/// Serves `backend` on stdin/stdout until the client disconnects.
pub fn serve(backend: Backend, tools: ToolSet) -> Result<()> {
    let server = MemoryServer::new(backend, tools)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime for the MCP server")?;
    runtime.block_on(async move {
        let (filtered, sink) = tokio::io::duplex(1 << 16);
        tokio::spawn(filter_stdin(sink));
        let service = server
            .serve((filtered, tokio::io::stdout()))
            .await
            .context("the MCP handshake on stdin/stdout failed")?;
        service
            .waiting()
            .await
            .context("the MCP server stopped abnormally")?;
        Ok(())
    })
}

#[derive(Clone)]
struct MemoryServer {
    /// `None` while memory is turned off.
    memory: Option<Arc<Mutex<Memory>>>,
    /// The answer to every tool call while memory is off.
    disabled: Option<Arc<str>>,
    tools: Arc<Vec<Tool>>,
    usage_prompt: Arc<str>,
}

impl MemoryServer {
    fn new(backend: Backend, set: ToolSet) -> Result<Self> {
        let (definitions, usage_prompt, memory, disabled) = match backend {
            Backend::Memory(mut memory) => (
                memory.tool_definitions(set)?,
                memory.usage_prompt(set)?,
                Some(Arc::new(Mutex::new(*memory))),
                None,
            ),
            Backend::Disabled(runtime, disabled) => (
                runtime.tool_definitions(set)?,
                disabled.tool_reply(),
                None,
                Some(Arc::from(disabled.tool_reply())),
            ),
        };
        let tools = definitions
            .into_iter()
            .map(|definition| {
                let schema: JsonObject = serde_json::from_str(&definition.parameters_schema)
                    .with_context(|| {
                        format!("the schema of `{}` is not a JSON object", definition.name)
                    })?;
                Ok(Tool::new(definition.name, definition.description, schema))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(MemoryServer {
            memory,
            disabled,
            tools: Arc::new(tools),
            usage_prompt: usage_prompt.into(),
        })
    }

    /// Runs `f` on the memory on a blocking thread: memory calls do file I/O
    /// and may wait up to 15 s for another writer's lock.
    async fn with_memory<T, F>(&self, f: F) -> Result<T, McpError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Memory) -> T + Send + 'static,
    {
        let Some(memory) = self.memory.as_ref().map(Arc::clone) else {
            return Err(McpError::internal_error(
                "memory is turned off; no memory is open",
                None,
            ));
        };
        tokio::task::spawn_blocking(move || {
            // A panic while holding the lock cannot leave the memory
            // half-updated (the component is the state), so go on.
            let mut memory = memory
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            f(&mut memory)
        })
        .await
        .map_err(|e| McpError::internal_error(format!("the memory task failed: {e}"), None))
    }

    async fn context_block(&self) -> Result<Option<String>, McpError> {
        if self.disabled.is_some() {
            return Ok(None);
        }
        self.with_memory(|m| m.context_block())
            .await?
            .map_err(|e| McpError::internal_error(describe(&e), None))
    }
}

impl ServerHandler for MemoryServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .enable_prompts()
                .build(),
        )
        .with_server_info(Implementation::new(
            "agent-memory",
            env!("CARGO_PKG_VERSION"),
        ))
        .with_instructions(self.usage_prompt.to_string())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(self.tools.to_vec()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.iter().find(|tool| tool.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let name = request.name.to_string();
        if self.get_tool(&name).is_none() {
            return Err(McpError::invalid_params(
                format!(
                    "unknown tool `{name}`; this server has {}",
                    self.tools
                        .iter()
                        .map(|t| t.name.as_ref())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                None,
            ));
        }
        if let Some(reply) = &self.disabled {
            return Ok(CallToolResult::success(vec![ContentBlock::text(reply.to_string())]).into());
        }
        let arguments = arguments_text(request.arguments);
        let outcome = self
            .with_memory(move |m| m.call_tool(&name, &arguments))
            .await?;
        Ok(match outcome {
            Ok(text) => CallToolResult::success(vec![ContentBlock::text(text)]),
            Err(error) => CallToolResult::error(vec![ContentBlock::text(describe(&error))]),
        }
        .into())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let context = Resource::new(CONTEXT_URI, "context")
            .with_title("Memory context block")
            .with_description(
                "The <memory> block for the system prompt: MEMORY.md, open scratchpad items, \
                 the latest daily logs. Empty when there is nothing to show.",
            )
            .with_mime_type("text/markdown");
        Ok(ListResourcesResult::with_all_items(vec![context]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        if request.uri != CONTEXT_URI {
            return Err(McpError::resource_not_found(
                format!(
                    "no resource `{}`; this server has {CONTEXT_URI}",
                    request.uri
                ),
                None,
            ));
        }
        let block = self.context_block().await?.unwrap_or_default();
        let contents = ResourceContents::text(block, CONTEXT_URI).with_mime_type("text/markdown");
        Ok(ReadResourceResult::new(vec![contents]).into())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        let prompt = Prompt::new(
            PROMPT_NAME,
            Some("How to use the memory tools, then the current memory context block"),
            None,
        );
        let consolidate = Prompt::new(
            CONSOLIDATE_PROMPT,
            Some(
                "Tidy the memory: the consolidation plan (logs to distill, repeated lines, stale notes, what MEMORY.md's budget cuts), to answer with one memory_batch",
            ),
            None,
        );
        Ok(ListPromptsResult::with_all_items(vec![prompt, consolidate]))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        if request.name == CONSOLIDATE_PROMPT {
            if let Some(reply) = &self.disabled {
                let message = PromptMessage::new_text(Role::User, reply.to_string());
                return Ok(GetPromptResult::new(vec![message])
                    .with_description("Memory is turned off")
                    .into());
            }
            let plan = self
                .with_memory(|m| m.consolidation_plan())
                .await?
                .map_err(|e| McpError::invalid_params(describe(&e), None))?;
            let message = PromptMessage::new_text(Role::User, plan);
            return Ok(GetPromptResult::new(vec![message])
                .with_description("The consolidation plan: answer with one memory_batch")
                .into());
        }
        if request.name != PROMPT_NAME {
            return Err(McpError::invalid_params(
                format!(
                    "no prompt `{}`; this server has `{PROMPT_NAME}` and `{CONSOLIDATE_PROMPT}`",
                    request.name
                ),
                None,
            ));
        }
        let preamble = self.usage_prompt.to_string();
        if self.disabled.is_some() {
            let message = PromptMessage::new_text(Role::User, preamble);
            return Ok(GetPromptResult::new(vec![message])
                .with_description("Memory is turned off")
                .into());
        }
        let text = self
            .with_memory(move |m| {
                let block = m.context_block()?;
                m.append_memory_block(&preamble, block.as_deref())
            })
            .await?
            .map_err(|e| McpError::internal_error(describe(&e), None))?;
        let message = PromptMessage::new_text(Role::User, text);
        Ok(GetPromptResult::new(vec![message])
            .with_description("The memory's usage instructions and context block")
            .into())
    }
}

/// `<kind>: <message>` with the WIT spelling of the kind, for the model.
fn describe(error: &Error) -> String {
    match error {
        Error::Memory(e) => format!("{}: {}", e.kind().as_str(), e.message()),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_call_arguments_travel_as_raw_text() {
        let line = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"memory_write","arguments":{"target":"note","target":"long_term","content":"x"}}}"#;
        let passed: serde_json::Value = serde_json::from_str(&pass_raw_arguments(line)).unwrap();
        assert_eq!(passed["id"], 7);
        assert_eq!(passed["params"]["name"], "memory_write");
        let arguments = passed["params"]["arguments"].as_object().cloned();
        assert_eq!(
            arguments_text(arguments),
            r#"{"target":"note","target":"long_term","content":"x"}"#
        );
        // Other messages and unparsable lines pass unchanged.
        for line in [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            "not json",
        ] {
            assert_eq!(pass_raw_arguments(line), line);
        }
        // A client's own use of the key is just more text for the component.
        let forged = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory_read","arguments":{"agent-memory/raw-arguments":"{}"}}}"#;
        let passed: serde_json::Value = serde_json::from_str(&pass_raw_arguments(forged)).unwrap();
        assert_eq!(
            arguments_text(passed["params"]["arguments"].as_object().cloned()),
            r#"{"agent-memory/raw-arguments":"{}"}"#
        );
    }
}
