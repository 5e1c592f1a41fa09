//! The MCP 2026-07-28 tasks extension `io.modelcontextprotocol/tasks` on the wire.
//!
//! Shapes (area M of `docs/rules.md`):
//! * (M-1) `CreateTaskResult` (answer to `tools/call`): flat `{resultType: "task", taskId, status,
//!   createdAt, lastUpdatedAt, ttlMs (required, null = unlimited), pollIntervalMs?,
//!   statusMessage?, _meta?}`.
//! * (M-2, M-11) `GetTaskResult` (answer to `tasks/get`) and `notifications/tasks` params: the same
//!   members plus, by status, `inputRequests` (input_required), `result` (completed) or `error`
//!   (failed); `resultType: "complete"`.
//! * (M-3) `tasks/update` and `tasks/cancel` answer an empty ack `{resultType: "complete"}`.
//! * (M-4, M-10) Errors: `-32602` unknown/expired task, `-32601` for the removed `tasks/result` and
//!   `tasks/list`, `-32021` missing capability (with `data.requiredCapabilities`), `-32020`
//!   header mismatch.
//! * (M-5, M-6) Every `tasks/*` request carries the capability in
//!   `params._meta["io.modelcontextprotocol/clientCapabilities"].extensions["io.modelcontextprotocol/tasks"] = {}`
//!   and, over Streamable HTTP, the headers of [`http_headers`].
//! * (M-21) Every 2026 request the client builds carries the per-request envelope of the
//!   stateless wire in `params._meta`: `io.modelcontextprotocol/protocolVersion` and
//!   `io.modelcontextprotocol/clientInfo` beside the capabilities, since there is no `initialize`
//!   to say them once. The identity is longcall's unless the host names its own
//!   ([`set_client_info`]).

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use super::jsonrpc::{read_response, Answer, Id, Message};
use super::limits::Limits;
use super::task::{call_tool_result, present, raw_from_value, to_view, Kind};
use super::Parsed;
use crate::cancel::CancelAnswer;
use crate::error::{Error, QuotedOpt};
use crate::model::Model;
use crate::status::Status;
use crate::time::format_rfc3339_ms;
use crate::view::{codes, InputRequest, RpcError, TaskView, ToolResult};
use crate::violation::{Rule, Violation};

/// The protocol version string.
pub const PROTOCOL_VERSION: &str = "2026-07-28";
/// The extension id.
pub const EXTENSION: &str = "io.modelcontextprotocol/tasks";
/// The `_meta` key of the per-request client capabilities.
pub const CLIENT_CAPABILITIES_META: &str = "io.modelcontextprotocol/clientCapabilities";
/// The `_meta` key of the per-request protocol version (M-21).
pub const PROTOCOL_VERSION_META: &str = "io.modelcontextprotocol/protocolVersion";
/// The `_meta` key of the per-request client identity (M-21).
pub const CLIENT_INFO_META: &str = "io.modelcontextprotocol/clientInfo";

/// The client's identity on each 2026 request (`_meta["io.modelcontextprotocol/clientInfo"]`,
/// M-21): what `initialize`'s `clientInfo` said on the 2025 wire.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ClientInfo {
    /// The client's name, as servers log it.
    pub name: String,
    /// Its version.
    pub version: String,
}

impl Default for ClientInfo {
    /// longcall itself, at this crate's version.
    fn default() -> Self {
        ClientInfo {
            name: "longcall".into(),
            version: env!("CARGO_PKG_VERSION").into(),
        }
    }
}

impl ClientInfo {
    fn to_value(&self) -> Value {
        json!({"name": self.name, "version": self.version})
    }
}

// Read member by member (`crate::tagged`): a derived reader would also compile an array form.
impl<'de> Deserialize<'de> for ClientInfo {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut f = crate::tagged::members(d, "struct ClientInfo")?;
        Ok(ClientInfo {
            name: f.req("name")?,
            version: f.req("version")?,
        })
    }
}

/// A task as written on the wire: `CreateTaskResult`, `GetTaskResult` and `notifications/tasks`
/// params share it (the payload members are present by status). Exact: parse then serialize gives
/// back the same JSON value; `_meta` is in `meta`, other unknown members in `extra`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Task {
    /// `taskId`.
    #[serde(rename = "taskId")]
    pub task_id: String,
    /// `status`, as written (read it with [`Status::parse`]).
    pub status: String,
    /// `statusMessage`.
    #[serde(
        rename = "statusMessage",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub status_message: Option<String>,
    /// `createdAt` (RFC 3339).
    #[serde(rename = "createdAt")]
    pub created_at: String,
    /// `lastUpdatedAt` (RFC 3339).
    #[serde(rename = "lastUpdatedAt")]
    pub last_updated_at: String,
    /// `ttlMs`: `None` absent (a violation), `Some(None)` is `null` (unlimited).
    #[serde(
        rename = "ttlMs",
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub ttl_ms: Option<Option<u64>>,
    /// `pollIntervalMs`.
    #[serde(
        rename = "pollIntervalMs",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub poll_interval_ms: Option<u64>,
    /// `resultType` (`"task"` on create, `"complete"` on `tasks/get`, absent in notifications).
    #[serde(
        rename = "resultType",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub result_type: Option<String>,
    /// `inputRequests` (input_required): key → request.
    #[serde(
        rename = "inputRequests",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub input_requests: Option<Map<String, Value>>,
    /// `result` (completed): the tool result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    /// `error` (failed): the JSON-RPC error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<RpcError>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Value>,
    /// Every other member, kept as received.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

// Read through `crate::tagged`, not serde's derived `flatten` support (which buffers every
// member in its private content form): the same results, far less WebAssembly.
impl<'de> Deserialize<'de> for Ack {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut f = crate::tagged::members(d, "struct Ack")?;
        Ok(Ack {
            result_type: f.opt("resultType")?,
            meta: f.opt("_meta")?,
            extra: f.into_map(),
        })
    }
}

impl Task {
    /// The wire task for a view (`resultType` as given: `"task"` for a create answer,
    /// `"complete"` for `tasks/get`, `None` for a notification). Missing timestamps are written
    /// as the epoch; a host that serves tasks always has them.
    pub fn from_view(view: &TaskView, result_type: Option<&str>) -> Task {
        let mut input_requests = None;
        if view.status == Status::InputRequired || !view.input_requests.is_empty() {
            input_requests = Some(crate::tagged::object(
                view.input_requests
                    .iter()
                    .map(|r| (r.key.clone(), r.request.as_value().clone())),
            ));
        }
        Task {
            task_id: view.task_id.clone(),
            status: String::from(view.status.as_str()),
            status_message: view.status_message.clone(),
            created_at: format_rfc3339_ms(view.created_at_ms.unwrap_or(0)),
            last_updated_at: format_rfc3339_ms(view.last_updated_at_ms.unwrap_or(0)),
            ttl_ms: view.ttl_ms.member(),
            poll_interval_ms: view.poll_interval_ms,
            result_type: result_type.map(String::from),
            input_requests,
            result: view.result.as_ref().map(|r| r.value.as_value().clone()),
            error: view.error.clone(),
            meta: None,
            extra: Map::new(),
        }
    }
}

/// The empty ack of `tasks/update` and `tasks/cancel`: `{resultType: "complete", _meta?}`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Ack {
    /// `resultType`, `"complete"` when well-formed.
    #[serde(
        rename = "resultType",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub result_type: Option<String>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Value>,
    /// Every other member, kept as received.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Ack {
    /// The well-formed ack.
    #[must_use]
    pub fn complete() -> Ack {
        Ack {
            result_type: Some("complete".into()),
            meta: None,
            extra: Map::new(),
        }
    }
}

/// Reads a `CreateTaskResult` (the `result` of a `tools/call` answer).
pub fn read_create(result: &Value) -> Result<Parsed<TaskView>, Error> {
    to_view(
        raw_from_value(result, "CreateTaskResult")?,
        Kind::Create2026,
    )
}

/// Reads a `GetTaskResult` (the `result` of a `tasks/get` answer).
pub fn read_get(result: &Value) -> Result<Parsed<TaskView>, Error> {
    to_view(raw_from_value(result, "GetTaskResult")?, Kind::Get2026)
}

/// Reads the params of a `notifications/tasks` notification (a `DetailedTask`).
pub fn read_notification(params: &Value) -> Result<Parsed<TaskView>, Error> {
    to_view(
        raw_from_value(params, "notifications/tasks")?,
        Kind::Notify2026,
    )
}

/// Reads a `tasks/get` answer straight from the bytes of the JSON-RPC response: the fast path
/// (one borrowed pass, no intermediate `Value` for the task members).
///
/// ```
/// use longcall::wire::{mcp2026, Answer, Limits};
/// use longcall::Status;
/// let bytes = br#"{"jsonrpc":"2.0","id":3,"result":{"taskId":"t1","status":"working",
///   "createdAt":"2026-11-29T15:07:54.708861+00:00","lastUpdatedAt":"2026-11-29T15:07:54.72Z",
///   "ttlMs":900000,"pollIntervalMs":200,"resultType":"complete"}}"#;
/// let (_id, answer) = mcp2026::parse_get_response(bytes, &Limits::DEFAULT).unwrap();
/// let Answer::Result(p) = answer else { panic!() };
/// assert_eq!(p.value.status, Status::Working);
/// assert_eq!(p.value.poll_interval_ms, Some(200));
/// assert!(p.violations.is_empty());
/// ```
pub fn parse_get_response(
    bytes: &[u8],
    limits: &Limits,
) -> Result<(Id, Answer<Parsed<TaskView>>), Error> {
    // The borrowed field-by-field read first; anything it leaves is read as a `Value`, by the
    // reader every other path takes (so a member it reads as absent, M-20, is absent here too).
    if let Some((id, raw)) = super::scan::task_response(bytes, limits) {
        return Ok((id, Answer::Result(to_view(raw, Kind::Get2026)?)));
    }
    let (id, answer) = read_response::<Value>(bytes, limits, "tasks/get answer")?;
    Ok((
        id,
        match answer {
            Answer::Result(v) => Answer::Result(to_view(
                raw_from_value(&v, "tasks/get answer")?,
                Kind::Get2026,
            )?),
            Answer::Error(e) => Answer::Error(e),
        },
    ))
}

/// The fast path of [`parse_get_response`] alone: `None` for anything the borrowed read leaves
/// to serde (error answers included), which a caller with a general path of its own reads there
/// instead of a second time by serde here (and WebAssembly builds then carry no typed reader of
/// the response envelope beside the `Value` one).
pub(crate) fn scan_get_response(bytes: &[u8], limits: &Limits) -> Option<(Id, Parsed<TaskView>)> {
    let (id, raw) = super::scan::task_response(bytes, limits)?;
    Some((id, to_view(raw, Kind::Get2026).ok()?))
}

/// Reads an ack (`tasks/update`, `tasks/cancel`); a `resultType` other than `"complete"` is a
/// [`Rule::WrongResultType`] violation.
pub fn read_ack(result: &Value) -> Result<Parsed<Ack>, Error> {
    let ack: Ack = serde_json::from_value(result.clone())
        .map_err(|e| super::limits::malformed("tasks ack", &e))?;
    let mut p = Parsed::clean(ack);
    if p.value.result_type.as_deref() != Some("complete") {
        p.violations.push(Violation::new(
            Rule::WrongResultType,
            alloc::format!(
                "ack has resultType {}, expected \"complete\"",
                QuotedOpt(p.value.result_type.as_deref())
            ),
        ));
    }
    Ok(p)
}

/// What a `tools/call` answered: a task handle, an MRTR input request, or the plain result (the
/// server decides).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum CallAnswer {
    /// `resultType: "task"`: a task was created.
    Task(Box<TaskView>),
    /// `resultType: "input_required"` (MRTR `InputRequiredResult`): the server needs these
    /// inputs, then the same `tools/call` again with `inputResponses` and `requestState`.
    InputRequired {
        /// Key -> request, in the server's order; empty when the server asks nothing and keeps
        /// only its `requestState` (E-69).
        input_requests: Vec<InputRequest>,
        /// The server's `requestState`, to be echoed unchanged.
        request_state: Option<Value>,
    },
    /// Any other result: the tool's own result.
    Result(ToolResult),
}

/// Reads the `result` of a `tools/call` answer. An `InputRequiredResult` is never a success:
/// it is [`CallAnswer::InputRequired`].
///
/// ```
/// use longcall::wire::mcp2026::{read_tools_call, CallAnswer};
/// let v = serde_json::json!({"resultType": "input_required", "requestState": "s1",
///   "inputRequests": {"k": {"method": "elicitation/create", "params": {}}}});
/// let CallAnswer::InputRequired { input_requests, request_state } = read_tools_call(&v).unwrap().value
/// else { panic!() };
/// assert_eq!(input_requests[0].key, "k");
/// assert_eq!(request_state, Some("s1".into()));
/// ```
pub fn read_tools_call(result: &Value) -> Result<Parsed<CallAnswer>, Error> {
    if result.get("resultType").and_then(Value::as_str) == Some("input_required") {
        let mut v = Vec::new();
        let mut input_requests = Vec::new();
        match result.get("inputRequests") {
            Some(Value::Object(map)) => {
                for (key, request) in map {
                    if request.get("method").and_then(Value::as_str).is_none() {
                        v.push(Violation::new(
                            Rule::MissingField,
                            alloc::format!(
                                "inputRequests[{}] has no string method",
                                crate::error::Quoted(key)
                            ),
                        ));
                    }
                    input_requests.push(InputRequest {
                        key: key.clone(),
                        request: request.clone().into(),
                    });
                }
            }
            // E-69: a round that asks nothing carries the server's state alone.
            None | Some(Value::Null) => {}
            _ => {
                return Err(Error::Malformed {
                    what: "InputRequiredResult",
                    reason: "inputRequests must be an object of key -> request".into(),
                })
            }
        }
        return Ok(Parsed {
            value: CallAnswer::InputRequired {
                input_requests,
                request_state: result.get("requestState").cloned(),
            },
            violations: v,
        });
    }
    if result.get("resultType").and_then(Value::as_str) == Some("task") {
        let p = read_create(result)?;
        return Ok(Parsed {
            value: CallAnswer::Task(Box::new(p.value)),
            violations: p.violations,
        });
    }
    let mut v = Vec::new();
    let r = call_tool_result(result, &mut v);
    Ok(Parsed {
        value: CallAnswer::Result(r),
        violations: v,
    })
}

/// Maps the answer to a `tasks/cancel` into a [`CancelAnswer`]: the ack, a task (which 2026 does
/// not allow; the cancel table says so), or a JSON-RPC error.
///
/// ```
/// use longcall::cancel::CancelAnswer;
/// use longcall::wire::{mcp2026, Message};
/// let m = Message::parse(br#"{"jsonrpc":"2.0","id":27,"result":{"resultType":"complete"}}"#).unwrap();
/// assert_eq!(mcp2026::cancel_answer(&m).unwrap(), CancelAnswer::Ack);
/// ```
pub fn cancel_answer(response: &Message) -> Result<CancelAnswer, Error> {
    match response {
        Message::Response { result, .. } => {
            if result.get("taskId").is_some() && result.get("status").is_some() {
                let status = result
                    .get("status")
                    .and_then(Value::as_str)
                    .ok_or_else(|| Error::Malformed {
                        what: "tasks/cancel answer",
                        reason: "status must be a string".into(),
                    })?;
                Ok(CancelAnswer::Task {
                    status: Status::parse(Model::Task2026, status)?.expect_task()?,
                })
            } else {
                Ok(CancelAnswer::Ack)
            }
        }
        Message::Error { error, .. } => Ok(CancelAnswer::RpcError { code: error.code }),
        _ => Err(Error::Malformed {
            what: "tasks/cancel answer",
            reason: "not a response".into(),
        }),
    }
}

/// What a JSON-RPC error on a tasks request means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TaskErrorKind {
    /// `-32602`: unknown or expired task id (or another principal's).
    UnknownTask,
    /// `-32601`: method not found (`tasks/result`, `tasks/list` on 2026).
    MethodNotFound,
    /// `-32021`: the tasks capability was not declared on this request.
    MissingCapability {
        /// `data.requiredCapabilities.extensions["io.modelcontextprotocol/tasks"]` is present.
        names_tasks_extension: bool,
    },
    /// `-32020`: an `Mcp-Name` / `Mcp-Method` header missing or not matching the body.
    HeaderMismatch,
    /// Any other code.
    Other(i64),
}

/// Classifies an error by its code (never its message).
#[must_use]
pub fn classify_error(error: &RpcError) -> TaskErrorKind {
    match error.code {
        codes::INVALID_PARAMS => TaskErrorKind::UnknownTask,
        codes::METHOD_NOT_FOUND => TaskErrorKind::MethodNotFound,
        codes::MISSING_REQUIRED_CLIENT_CAPABILITY => TaskErrorKind::MissingCapability {
            names_tasks_extension: error
                .data
                .as_ref()
                .and_then(|d| d.get("requiredCapabilities"))
                .and_then(|c| c.get("extensions"))
                .and_then(|e| e.get(EXTENSION))
                .is_some(),
        },
        codes::HEADER_MISMATCH => TaskErrorKind::HeaderMismatch,
        other => TaskErrorKind::Other(other),
    }
}

/// The `-32021` error a server answers to a request without the tasks capability.
#[must_use]
pub fn missing_capability_error(message: &str) -> RpcError {
    RpcError {
        code: codes::MISSING_REQUIRED_CLIENT_CAPABILITY,
        message: message.into(),
        data: Some(json!({"requiredCapabilities": {"extensions": {EXTENSION: {}}}}).into()),
    }
}

/// The `_meta` object of one 2026 request naming `client` (M-5, M-21): the tasks capability,
/// the protocol version and the client, as [`declare_envelope`] writes them.
#[must_use]
pub fn request_meta(client: &ClientInfo) -> Value {
    let mut params = Value::Object(Map::new());
    declare_envelope(&mut params, client);
    params
        .as_object_mut()
        .and_then(|p| p.remove("_meta"))
        .unwrap_or_default()
}

/// Adds the tasks capability to `params._meta` (creating `_meta` and the path as needed and
/// keeping what is there). Params that are not an object are replaced by an object.
pub fn declare_capability(params: &mut Value) {
    if !params.is_object() {
        *params = Value::Object(Map::new());
    }
    let Some(obj) = params.as_object_mut() else {
        return;
    };
    let meta = obj
        .entry("_meta")
        .or_insert_with(|| Value::Object(Map::new()));
    if !meta.is_object() {
        *meta = Value::Object(Map::new());
    }
    let Some(caps) = meta.as_object_mut().map(|m| {
        m.entry(CLIENT_CAPABILITIES_META)
            .or_insert_with(|| Value::Object(Map::new()))
    }) else {
        return;
    };
    if !caps.is_object() {
        *caps = Value::Object(Map::new());
    }
    let Some(ext) = caps.as_object_mut().map(|c| {
        c.entry("extensions")
            .or_insert_with(|| Value::Object(Map::new()))
    }) else {
        return;
    };
    if !ext.is_object() {
        *ext = Value::Object(Map::new());
    }
    if let Some(e) = ext.as_object_mut() {
        e.entry(EXTENSION)
            .or_insert_with(|| Value::Object(Map::new()));
    }
}

/// Names `client` in a 2026 request's `_meta` (M-21), in place of the identity the builders
/// write (longcall's); a message that is not a request with object params is left as it is.
///
/// ```
/// use longcall::wire::{mcp2026, Id};
/// let mut v = mcp2026::get_request(Id::Number(3), "t1").to_value();
/// assert_eq!(v["params"]["_meta"]["io.modelcontextprotocol/clientInfo"]["name"], "longcall");
/// let me = mcp2026::ClientInfo { name: "studio".into(), version: "2.1.0".into() };
/// mcp2026::set_client_info(&mut v, &me);
/// assert_eq!(v["params"]["_meta"]["io.modelcontextprotocol/clientInfo"]["name"], "studio");
/// assert_eq!(v["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"], "2026-07-28");
/// ```
pub fn set_client_info(message: &mut Value, client: &ClientInfo) {
    let meta = message
        .get_mut("params")
        .and_then(|p| p.get_mut("_meta"))
        .and_then(Value::as_object_mut);
    if let Some(meta) = meta {
        meta.insert(CLIENT_INFO_META.into(), client.to_value());
    }
}

/// Writes a 2026 request's whole `_meta` envelope into `params` (M-5, M-21): the tasks
/// capability ([`declare_capability`]), the protocol version and `client`, keeping what else is
/// there. For a request of the host's own (`server/discover`, `tools/list`), so it goes out as
/// the core's requests do.
///
/// ```
/// use longcall::wire::mcp2026::{self, ClientInfo};
/// let mut params = serde_json::json!({"cursor": "p2"});
/// mcp2026::declare_envelope(&mut params, &ClientInfo::default());
/// assert_eq!(params["_meta"]["io.modelcontextprotocol/protocolVersion"], "2026-07-28");
/// assert_eq!(params["_meta"]["io.modelcontextprotocol/clientInfo"]["name"], "longcall");
/// assert_eq!(params["cursor"], "p2");
/// ```
pub fn declare_envelope(params: &mut Value, client: &ClientInfo) {
    declare_capability(params);
    // `declare_capability` made `_meta` an object.
    if let Some(meta) = params.get_mut("_meta").and_then(Value::as_object_mut) {
        meta.insert(PROTOCOL_VERSION_META.into(), PROTOCOL_VERSION.into());
        meta.insert(CLIENT_INFO_META.into(), client.to_value());
    }
}

fn task_request(id: Id, method: &str, mut params: Value) -> Message {
    declare_envelope(&mut params, &ClientInfo::default());
    Message::Request {
        id,
        method: method.into(),
        params: Some(params),
    }
}

/// `tools/call {name, arguments}` declaring the tasks capability (the server decides whether to
/// answer with a task).
#[must_use]
pub fn tools_call_request(id: Id, name: &str, arguments: Value) -> Message {
    task_request(
        id,
        "tools/call",
        json!({"name": name, "arguments": arguments}),
    )
}

/// The MRTR continuation: `tools/call {name, arguments, inputResponses?, requestState?}` with the
/// capability, the same tool and arguments as the first call (no `inputResponses` when the round
/// asked nothing, E-69).
pub fn continue_call_request(
    id: Id,
    name: &str,
    arguments: Value,
    input_responses: Map<String, Value>,
    request_state: Option<Value>,
) -> Message {
    let mut params = json!({"name": name, "arguments": arguments});
    if let Some(obj) = params.as_object_mut() {
        // E-69: a round that asked nothing is answered with nothing, not an empty map.
        if !input_responses.is_empty() {
            obj.insert("inputResponses".into(), Value::Object(input_responses));
        }
        if let Some(state) = request_state {
            obj.insert("requestState".into(), state);
        }
    }
    task_request(id, "tools/call", params)
}

/// `tasks/get {taskId}` with the capability.
///
/// ```
/// use longcall::wire::{mcp2026, Id};
/// let v = mcp2026::get_request(Id::Number(3), "t1").to_value();
/// assert_eq!(v["params"]["taskId"], "t1");
/// assert!(v["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"]["extensions"]
///     ["io.modelcontextprotocol/tasks"].is_object());
/// ```
#[must_use]
pub fn get_request(id: Id, task_id: &str) -> Message {
    task_request(id, "tasks/get", json!({ "taskId": task_id }))
}

/// `tasks/update {taskId, inputResponses}` with the capability.
#[must_use]
pub fn update_request(id: Id, task_id: &str, input_responses: Map<String, Value>) -> Message {
    task_request(
        id,
        "tasks/update",
        json!({ "taskId": task_id, "inputResponses": input_responses }),
    )
}

/// `tasks/cancel {taskId}` with the capability.
#[must_use]
pub fn cancel_request(id: Id, task_id: &str) -> Message {
    task_request(id, "tasks/cancel", json!({ "taskId": task_id }))
}

/// The Streamable HTTP headers for a request: `Mcp-Method: <method>`, `Mcp-Name: <name>` (the
/// `taskId` for `tasks/*`, the tool name for `tools/call`) and `MCP-Protocol-Version`.
/// Values that are not plain printable ASCII use the `=?base64?...?=` sentinel encoding.
///
/// ```
/// use longcall::wire::mcp2026::http_headers;
/// let h = http_headers("tasks/get", "t1");
/// assert_eq!(h[1], ("Mcp-Name", "t1".to_string()));
/// assert_eq!(h[2].1, "2026-07-28");
/// ```
#[must_use]
pub fn http_headers(method: &str, name: &str) -> [(&'static str, String); 3] {
    [
        ("Mcp-Method", header_value(method)),
        ("Mcp-Name", header_value(name)),
        ("MCP-Protocol-Version", String::from(PROTOCOL_VERSION)),
    ]
}

fn header_value(v: &str) -> String {
    if v.bytes().all(|b| (0x20..0x7f).contains(&b)) {
        return String::from(v);
    }
    let mut out = String::from("=?base64?");
    base64(v.as_bytes(), &mut out);
    out.push_str("?=");
    out
}

fn base64(bytes: &[u8], out: &mut String) {
    const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let sym = |i: u32| char::from(T.get((i & 63) as usize).copied().unwrap_or(b'='));
    for chunk in bytes.chunks(3) {
        let b0 = u32::from(chunk.first().copied().unwrap_or(0));
        let b1 = u32::from(chunk.get(1).copied().unwrap_or(0));
        let b2 = u32::from(chunk.get(2).copied().unwrap_or(0));
        let n = (b0 << 16) | (b1 << 8) | b2;
        out.push(sym(n >> 18));
        out.push(sym(n >> 12));
        out.push(if chunk.len() > 1 { sym(n >> 6) } else { '=' });
        out.push(if chunk.len() > 2 { sym(n) } else { '=' });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_sentinel() {
        assert_eq!(header_value("tâche"), "=?base64?dMOiY2hl?=");
        assert_eq!(header_value("plain"), "plain");
    }

    /// Rules M-5.
    #[test]
    fn declare_capability_keeps_existing_meta() {
        let mut p = json!({"taskId":"x","_meta":{"k":1,"io.modelcontextprotocol/clientCapabilities":{"sampling":{}}}});
        declare_capability(&mut p);
        assert_eq!(p["_meta"]["k"], 1);
        assert!(p["_meta"][CLIENT_CAPABILITIES_META]["sampling"].is_object());
        assert!(p["_meta"][CLIENT_CAPABILITIES_META]["extensions"][EXTENSION].is_object());
    }
}
