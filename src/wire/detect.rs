//! Which MCP tasks revision a peer speaks, from headers and message shapes, never guessed (M-12).
//!
//! The answer is a [`Detection`]: a [`Model`] with the [`Basis`] it rests on, or no model at all
//! when nothing decides (an empty result, a plain tool result, a generic error). Evidence in
//! order of strength: an explicit override; the `MCP-Protocol-Version` header; the request's
//! `_meta["io.modelcontextprotocol/protocolVersion"]`; then shapes that only one revision has:
//!
//! | 2026-07-28 | 2025-11-25 |
//! |---|---|
//! | `tasks/update`, `notifications/tasks` | `tasks/result`, `tasks/list`, `notifications/tasks/status` |
//! | `resultType` on a result (any value), `ttlMs`, `pollIntervalMs` | nested `{task: {...}}`, `ttl`, `pollInterval`, `tasks: [...]`, related-task `_meta` |
//! | the tasks extension in the request's client capabilities | |
//! | error codes `-32021`, `-32020` | |
//!
//! A `params.task` on `tools/call` decides nothing: 2026 servers must ignore it and clients may
//! still send it. Header and shape that disagree are [`Basis::Conflict`] with no model.

use serde_json::Value;

use super::jsonrpc::Message;
use super::{mcp2025, mcp2026};
use crate::model::Model;
use crate::view::codes;

/// What a detection rests on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Basis {
    /// The host said so.
    Override,
    /// The `MCP-Protocol-Version` header.
    Header,
    /// `_meta["io.modelcontextprotocol/protocolVersion"]` in the request.
    ProtocolMeta,
    /// A shape only one revision has; the text names it.
    Shape(&'static str),
    /// Header and shape point at different revisions.
    Conflict,
    /// Nothing decides.
    Nothing,
}

/// The revision of one message or exchange, with its basis. `model` is `None` unless the
/// evidence decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Detection {
    /// `Task2026` or `Task2025`, when decided.
    pub model: Option<Model>,
    /// Why.
    pub basis: Basis,
}

impl Detection {
    const NOTHING: Detection = Detection {
        model: None,
        basis: Basis::Nothing,
    };
}

/// The revision named by a protocol version string.
#[must_use]
pub fn from_protocol_version(version: &str) -> Option<Model> {
    match version.trim() {
        mcp2026::PROTOCOL_VERSION => Some(Model::Task2026),
        mcp2025::PROTOCOL_VERSION => Some(Model::Task2025),
        _ => None,
    }
}

/// The revision named by the `MCP-Protocol-Version` header among `headers` (names compared
/// case-insensitively).
pub fn from_headers<'a, I>(headers: I) -> Option<Model>
where
    I: IntoIterator<Item = (&'a str, &'a str)>,
{
    headers
        .into_iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("mcp-protocol-version"))
        .and_then(|(_, v)| from_protocol_version(v))
}

fn shape(model: Model, what: &'static str) -> Detection {
    Detection {
        model: Some(model),
        basis: Basis::Shape(what),
    }
}

fn has(v: &Value, key: &str) -> bool {
    v.get(key).is_some()
}

/// The revision a single message shows, from its shape alone.
///
/// ```
/// use longcall::wire::{detect, Message};
/// use longcall::Model;
/// let m = Message::parse(br#"{"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"a","status":"working","ttl":null,"createdAt":"","lastUpdatedAt":""}}}"#).unwrap();
/// assert_eq!(detect::from_message(&m).model, Some(Model::Task2025));
/// let empty = Message::parse(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#).unwrap();
/// assert_eq!(detect::from_message(&empty).model, None);
/// ```
pub fn from_message(message: &Message) -> Detection {
    use Model::{Task2025 as Y25, Task2026 as Y26};
    match message {
        Message::Request { method, params, .. } | Message::Notification { method, params } => {
            if let Some(meta) = params.as_ref().and_then(|p| p.get("_meta")) {
                if let Some(m) = meta
                    .get("io.modelcontextprotocol/protocolVersion")
                    .and_then(Value::as_str)
                    .and_then(from_protocol_version)
                {
                    return Detection {
                        model: Some(m),
                        basis: Basis::ProtocolMeta,
                    };
                }
                if meta
                    .get(mcp2026::CLIENT_CAPABILITIES_META)
                    .and_then(|c| c.get("extensions"))
                    .and_then(|e| e.get(mcp2026::EXTENSION))
                    .is_some()
                {
                    return shape(Y26, "tasks extension in the request's client capabilities");
                }
            }
            match method.as_str() {
                "tasks/update" => shape(Y26, "tasks/update"),
                "notifications/tasks" => shape(Y26, "notifications/tasks"),
                "tasks/result" => shape(Y25, "tasks/result"),
                "tasks/list" => shape(Y25, "tasks/list"),
                "notifications/tasks/status" => shape(Y25, "notifications/tasks/status"),
                _ => Detection::NOTHING,
            }
        }
        Message::Response { result, .. } => {
            if has(result, "resultType") {
                return shape(Y26, "resultType on a result");
            }
            if has(result, "ttlMs") || has(result, "pollIntervalMs") {
                return shape(Y26, "ttlMs / pollIntervalMs");
            }
            if result.get("task").is_some_and(|t| has(t, "taskId")) {
                return shape(Y25, "nested {task: {...}}");
            }
            if has(result, "ttl") || has(result, "pollInterval") {
                return shape(Y25, "ttl / pollInterval");
            }
            if result.get("tasks").is_some_and(Value::is_array) {
                return shape(Y25, "tasks/list result");
            }
            if result
                .get("_meta")
                .is_some_and(|m| has(m, mcp2025::RELATED_TASK_META))
            {
                return shape(Y25, "related-task _meta");
            }
            Detection::NOTHING
        }
        Message::Error { error, .. } => match error.code {
            codes::MISSING_REQUIRED_CLIENT_CAPABILITY => shape(Y26, "error -32021"),
            codes::HEADER_MISMATCH => shape(Y26, "error -32020"),
            _ => Detection::NOTHING,
        },
    }
}

/// Combines the evidence: `override_model` wins; then the `MCP-Protocol-Version` header value;
/// then the message's shape. A header and a shape that disagree give [`Basis::Conflict`].
///
/// ```
/// use longcall::wire::detect::{detect, Basis};
/// use longcall::Model;
/// let d = detect(None, Some("2026-07-28"), None);
/// assert_eq!((d.model, d.basis), (Some(Model::Task2026), Basis::Header));
/// assert_eq!(detect(None, Some("2099-01-01"), None).model, None);
/// ```
pub fn detect(
    override_model: Option<Model>,
    protocol_version_header: Option<&str>,
    message: Option<&Message>,
) -> Detection {
    if let Some(m) = override_model.filter(|m| m.is_task()) {
        return Detection {
            model: Some(m),
            basis: Basis::Override,
        };
    }
    let header = protocol_version_header.and_then(from_protocol_version);
    let seen = message.map_or(Detection::NOTHING, from_message);
    match (header, seen.model) {
        (Some(h), Some(s)) if h != s => Detection {
            model: None,
            basis: Basis::Conflict,
        },
        (Some(h), _) => Detection {
            model: Some(h),
            basis: Basis::Header,
        },
        (None, _) => seen,
    }
}
