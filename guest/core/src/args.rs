//! The tools' names, and a tool call's JSON arguments, read strictly: one
//! object, only the fields a tool names, each once, each of the type it
//! takes. Shared by the seed and curation tools, change sets and the
//! `memory` tool.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::{Map, Value};

use crate::error::{Error, ErrorKind, Result};

/// Name of the write tool.
pub const MEMORY_WRITE: &str = "memory_write";
/// Name of the read tool.
pub const MEMORY_READ: &str = "memory_read";
/// Name of the search tool.
pub const MEMORY_SEARCH: &str = "memory_search";
/// Name of the edit tool.
pub const MEMORY_EDIT: &str = "memory_edit";
/// Name of the delete tool.
pub const MEMORY_DELETE: &str = "memory_delete";
/// Name of the rename tool.
pub const MEMORY_RENAME: &str = "memory_rename";
/// Name of the history tool.
pub const MEMORY_HISTORY: &str = "memory_history";
/// Name of the restore tool.
pub const MEMORY_RESTORE: &str = "memory_restore";
/// Name of the refresh tool (staleness anchors).
pub const MEMORY_REFRESH: &str = "memory_refresh";
/// Name of the change-set tool.
pub const MEMORY_BATCH: &str = "memory_batch";
/// Name of the consolidation tool.
pub const MEMORY_CONSOLIDATE: &str = "memory_consolidate";

pub(crate) fn invalid(tool: &str, what: String) -> Error {
    Error::new(ErrorKind::InvalidArguments, format!("{tool}: {what}"))
}

/// A JSON object whose keys are all distinct. `serde_json::Value` keeps the
/// last of two equal keys; a model (or an injection) could hide a second
/// `target` or `name` that way, so a repeated key is refused instead.
struct StrictObject(Map<String, Value>);

impl<'de> Deserialize<'de> for StrictObject {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Fields;
        impl<'de> Visitor<'de> for Fields {
            type Value = StrictObject;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<StrictObject, A::Error> {
                let mut map = Map::new();
                while let Some(key) = access.next_key::<String>()? {
                    if map.contains_key(&key) {
                        return Err(de::Error::custom(format_args!("duplicate field {key:?}")));
                    }
                    let value: Value = access.next_value()?;
                    map.insert(key, value);
                }
                Ok(StrictObject(map))
            }
        }
        deserializer.deserialize_map(Fields)
    }
}

/// Parse a tool's arguments: a JSON object with only the `allowed` fields,
/// each at most once. An empty or all-whitespace string counts as `{}`.
pub(crate) fn parse_object(
    tool: &str,
    arguments: &str,
    allowed: &[&str],
) -> Result<Map<String, Value>> {
    let map = if arguments.trim().is_empty() {
        Map::new()
    } else {
        serde_json::from_str::<StrictObject>(arguments)
            .map_err(|e| invalid(tool, format!("arguments are not a valid JSON object: {e}")))?
            .0
    };
    if let Some(unknown) = map.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(invalid(
            tool,
            format!("unknown field {unknown:?}; expected {}", allowed.join(", ")),
        ));
    }
    Ok(map)
}

pub(crate) fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A string field; absent and `null` are `None`.
pub(crate) fn opt_str(
    tool: &str,
    map: &mut Map<String, Value>,
    field: &str,
) -> Result<Option<String>> {
    match map.remove(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(invalid(
            tool,
            format!(
                "field {field:?} must be a string, got {}",
                type_name(&other)
            ),
        )),
    }
}

/// A required string field.
pub(crate) fn req_str(tool: &str, map: &mut Map<String, Value>, field: &str) -> Result<String> {
    opt_str(tool, map, field)?
        .ok_or_else(|| invalid(tool, format!("missing required field {field:?}")))
}
