//! The MCP 2025-11-25 experimental tasks on the wire (what the 1.x TypeScript SDK speaks).
//!
//! Shapes (area M of `docs/rules.md`):
//! * (M-8) `tools/call` with `params.task: {ttl?}` is answered `{task: {taskId, status, ttl (number
//!   or null), createdAt, lastUpdatedAt, pollInterval?, statusMessage?}, _meta?}` (nested).
//! * `tasks/get` answers the flat `Task`; `tasks/cancel` answers the task, which MUST already be
//!   `cancelled` (a terminal task is refused with `-32602`).
//! * (M-9) `tasks/result` blocks until terminal and answers what the original request would have: a
//!   `CallToolResult` (`isError: true` possible) or a JSON-RPC error, with
//!   `_meta["io.modelcontextprotocol/related-task"] = {taskId}`.
//! * `tasks/list {cursor?}` answers `{tasks: [Task], nextCursor?}`.
//! * (M-11) `notifications/tasks/status` params are a `Task`.

use alloc::string::String;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use super::jsonrpc::{Answer, Id, Message};
use super::limits::malformed;
use super::task::{present, raw_from_value, to_view, tool_result, Kind, RawTask};
use super::Parsed;
use crate::cancel::CancelAnswer;
use crate::error::Error;
use crate::model::Model;
use crate::server::gate::TaskSupport;
use crate::status::Status;
use crate::time::format_rfc3339_ms;
use crate::view::{TaskView, ToolResult};
use crate::violation::{Rule, Violation};

/// The protocol version string.
pub const PROTOCOL_VERSION: &str = "2025-11-25";
/// The `_meta` key naming the task a message belongs to.
pub const RELATED_TASK_META: &str = "io.modelcontextprotocol/related-task";

/// A 2025 task as written on the wire (`tasks/get`, `tasks/cancel`, list items, status
/// notifications, and inside `CreateTaskResult`). Exact: `_meta` in `meta`, other unknown
/// members in `extra`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Task {
    /// `taskId`.
    #[serde(rename = "taskId")]
    pub task_id: String,
    /// `status`, as written.
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
    /// `ttl`: `None` absent (a violation), `Some(None)` is `null` (unlimited).
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub ttl: Option<Option<u64>>,
    /// `pollInterval` in ms.
    #[serde(
        rename = "pollInterval",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub poll_interval: Option<u64>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Value>,
    /// Every other member, kept as received.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Task {
    /// The wire task for a view, as a server writes it in `CreateTaskResult`, `tasks/get`,
    /// `tasks/cancel` and status notifications: no payload and no input requests (2025 hands
    /// those over on `tasks/result`). Missing timestamps are written as the epoch; a host that
    /// serves tasks always has them.
    ///
    /// ```
    /// use longcall::view::{TaskView, Ttl};
    /// use longcall::wire::mcp2025::{read_get, Task};
    /// use longcall::Status;
    /// let view = TaskView {
    ///     task_id: "t1".into(), status: Status::Working, status_message: None,
    ///     created_at_ms: Some(1_000), last_updated_at_ms: Some(2_000), ttl_ms: Ttl::Unlimited,
    ///     poll_interval_ms: Some(500), input_requests: vec![], result: None, error: None,
    /// };
    /// let wire = serde_json::to_value(Task::from_view(&view)).unwrap();
    /// assert_eq!(wire["ttl"], serde_json::Value::Null, "unlimited is written, as null");
    /// let back = read_get(&wire).unwrap();
    /// assert!(back.violations.is_empty());
    /// assert_eq!(back.value, view);
    /// ```
    #[must_use]
    pub fn from_view(view: &TaskView) -> Task {
        Task {
            task_id: view.task_id.clone(),
            status: String::from(view.status.as_str()),
            status_message: view.status_message.clone(),
            created_at: format_rfc3339_ms(view.created_at_ms.unwrap_or(0)),
            last_updated_at: format_rfc3339_ms(view.last_updated_at_ms.unwrap_or(0)),
            ttl: view.ttl_ms.member(),
            poll_interval: view.poll_interval_ms,
            meta: None,
            extra: Map::new(),
        }
    }
}

/// (M-9) The `tasks/result` success a server writes: the tool result as stored, with
/// `_meta["io.modelcontextprotocol/related-task"] = {taskId}` added to its own `_meta`.
///
/// ```
/// use longcall::view::ToolResult;
/// use longcall::wire::{mcp2025, Message};
/// let stored = ToolResult { is_error: false, value: serde_json::json!({"content": []}).into() };
/// let result = mcp2025::task_result("t1", &stored);
/// let m = Message::Response { id: 1.into(), result };
/// let read = mcp2025::read_task_result(&m).unwrap();
/// let longcall::wire::Answer::Result(parsed) = read else { panic!() };
/// assert!(parsed.violations.is_empty());
/// assert_eq!(parsed.value.related_task.as_deref(), Some("t1"));
/// ```
#[must_use]
pub fn task_result(task_id: &str, result: &ToolResult) -> Value {
    let mut value = result.value.as_value().clone();
    if let Value::Object(map) = &mut value {
        let meta = map
            .entry("_meta")
            .or_insert_with(|| Value::Object(Map::new()));
        if !meta.is_object() {
            *meta = Value::Object(Map::new());
        }
        if let Value::Object(meta) = meta {
            meta.insert(RELATED_TASK_META.into(), json!({ "taskId": task_id }));
        }
    }
    value
}

/// `CreateTaskResult`: `{task: Task, _meta?}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CreateTaskResult {
    /// The task.
    pub task: Task,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Value>,
    /// Every other member, kept as received.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `ListTasksResult`: `{tasks: [Task], nextCursor?, _meta?}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ListTasksResult {
    /// The tasks on this page.
    pub tasks: Vec<Task>,
    /// The cursor of the next page.
    #[serde(
        rename = "nextCursor",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub next_cursor: Option<String>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Value>,
    /// Every other member, kept as received.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

fn task_view(value: &Value, what: &'static str) -> Result<Parsed<TaskView>, Error> {
    to_view(raw_from_value(value, what)?, Kind::Task2025)
}

/// Reads a `CreateTaskResult` (the `result` of a task-augmented `tools/call`).
pub fn read_create(result: &Value) -> Result<Parsed<TaskView>, Error> {
    let task = result.get("task").ok_or_else(|| Error::Malformed {
        what: "CreateTaskResult",
        reason: "missing task (2025 nests the task under \"task\")".into(),
    })?;
    task_view(task, "CreateTaskResult.task")
}

/// Reads a `tasks/get` result (a flat `Task`).
pub fn read_get(result: &Value) -> Result<Parsed<TaskView>, Error> {
    task_view(result, "tasks/get result")
}

/// Reads a `tasks/cancel` result (the task after cancellation). Its status is not judged here;
/// [`crate::cancel::classify_answer`] does that.
pub fn read_cancel(result: &Value) -> Result<Parsed<TaskView>, Error> {
    task_view(result, "tasks/cancel result")
}

/// Reads `notifications/tasks/status` params.
pub fn read_notification(params: &Value) -> Result<Parsed<TaskView>, Error> {
    task_view(params, "notifications/tasks/status")
}

/// One page of `tasks/list`.
#[derive(Clone, Debug, PartialEq)]
pub struct TaskPage {
    /// The tasks.
    pub tasks: Vec<TaskView>,
    /// The cursor of the next page, if any.
    pub next_cursor: Option<String>,
}

#[derive(Deserialize)]
struct RawList<'a> {
    #[serde(borrow)]
    tasks: Vec<RawTask<'a>>,
    #[serde(rename = "nextCursor", default)]
    next_cursor: Option<String>,
}

/// Reads a `tasks/list` result.
pub fn read_list(result: &Value) -> Result<Parsed<TaskPage>, Error> {
    let raw = RawList::deserialize(result).map_err(|e| malformed("tasks/list result", &e))?;
    let mut violations = Vec::new();
    let mut tasks = Vec::with_capacity(raw.tasks.len());
    for t in raw.tasks {
        let p = to_view(t, Kind::Task2025)?;
        violations.extend(p.violations);
        tasks.push(p.value);
    }
    Ok(Parsed {
        value: TaskPage {
            tasks,
            next_cursor: raw.next_cursor,
        },
        violations,
    })
}

/// A `tasks/result` success: the underlying result and the task it names.
#[derive(Clone, Debug, PartialEq)]
pub struct TaskResult {
    /// The tool result (`isError: true` is a tool error; 2025 reports such tasks `failed`).
    pub result: ToolResult,
    /// `_meta["io.modelcontextprotocol/related-task"].taskId`.
    pub related_task: Option<String>,
}

/// The task a message belongs to: `_meta["io.modelcontextprotocol/related-task"].taskId` of a
/// result, or of a request's params (a server's `elicitation/create` on a task's `tasks/result`
/// stream, rule I-10).
///
/// ```
/// use longcall::wire::mcp2025;
/// let params = serde_json::json!({
///     "message": "Delete a.txt?",
///     "_meta": {"io.modelcontextprotocol/related-task": {"taskId": "t1"}},
/// });
/// assert_eq!(mcp2025::related_task(&params), Some("t1"));
/// assert_eq!(mcp2025::related_task(&serde_json::json!({"message": "hi"})), None);
/// ```
#[must_use]
pub fn related_task(value: &Value) -> Option<&str> {
    value
        .get("_meta")?
        .get(RELATED_TASK_META)?
        .get("taskId")?
        .as_str()
}

/// Reads a `tasks/result` answer: the underlying result, or the underlying JSON-RPC error.
/// A result without the related-task `_meta` (a MUST) is a [`Rule::MissingField`] violation.
pub fn read_task_result(response: &Message) -> Result<Answer<Parsed<TaskResult>>, Error> {
    match response {
        Message::Response { result, .. } => {
            let mut v = Vec::new();
            let related_task = related_task(result).map(String::from);
            if related_task.is_none() {
                v.push(Violation::new(
                    Rule::MissingField,
                    "tasks/result answer without _meta io.modelcontextprotocol/related-task",
                ));
            }
            let result = tool_result(result.clone(), &mut v);
            Ok(Answer::Result(Parsed {
                value: TaskResult {
                    result,
                    related_task,
                },
                violations: v,
            }))
        }
        Message::Error { error, .. } => Ok(Answer::Error(error.clone())),
        _ => Err(Error::Malformed {
            what: "tasks/result answer",
            reason: "not a response".into(),
        }),
    }
}

/// Maps the answer to a `tasks/cancel` into a [`CancelAnswer`]: the task (with its status), or
/// a JSON-RPC error. A result that is not a task (a 2026-style ack) is [`CancelAnswer::Ack`],
/// which the cancel table judges as a broken revision.
///
/// ```
/// use longcall::cancel::CancelAnswer;
/// use longcall::wire::{mcp2025, Message};
/// use longcall::Status;
/// let m = Message::parse(br#"{"jsonrpc":"2.0","id":6,"error":{"code":-32602,"message":"terminal"}}"#).unwrap();
/// assert_eq!(mcp2025::cancel_answer(&m).unwrap(), CancelAnswer::RpcError { code: -32602 });
/// ```
pub fn cancel_answer(response: &Message) -> Result<CancelAnswer, Error> {
    match response {
        Message::Response { result, .. } => {
            if result.get("taskId").is_none() && result.get("status").is_none() {
                return Ok(CancelAnswer::Ack);
            }
            let status = result
                .get("status")
                .and_then(Value::as_str)
                .ok_or_else(|| Error::Malformed {
                    what: "tasks/cancel answer",
                    reason: "status must be a string".into(),
                })?;
            Ok(CancelAnswer::Task {
                status: Status::parse(Model::Task2025, status)?.expect_task()?,
            })
        }
        Message::Error { error, .. } => Ok(CancelAnswer::RpcError { code: error.code }),
        _ => Err(Error::Malformed {
            what: "tasks/cancel answer",
            reason: "not a response".into(),
        }),
    }
}

/// `tools/call {name, arguments, task: {ttl?}}`: asks for a task (a requested TTL the server
/// may override).
#[must_use]
pub fn tools_call_request(id: Id, name: &str, arguments: Value, ttl_ms: Option<u64>) -> Message {
    let task = match ttl_ms {
        Some(t) => json!({ "ttl": t }),
        None => json!({}),
    };
    tools_call(id, name, arguments, Some(task))
}

/// `tools/call {name, arguments}` without `task`: a plain call of a tool that may not run as
/// a task (E-64), answered by its `CallToolResult` or an error.
#[must_use]
pub fn tools_call_plain_request(id: Id, name: &str, arguments: Value) -> Message {
    tools_call(id, name, arguments, None)
}

fn tools_call(id: Id, name: &str, arguments: Value, task: Option<Value>) -> Message {
    let mut params = Map::new();
    params.insert("name".into(), name.into());
    params.insert("arguments".into(), arguments);
    if let Some(task) = task {
        params.insert("task".into(), task);
    }
    request(id, "tools/call", Value::Object(params))
}

/// A tool as `tools/list` lists it: its name and how it may run (`execution.taskSupport`).
/// Absent, or a value the 2025 wire does not have, is `forbidden`: the client may ask for a
/// task only where the server declared it may (E-64).
///
/// Errors: no non-empty string `name`.
pub fn listed_tool(tool: &Value) -> Result<(String, TaskSupport), Error> {
    let name = tool
        .get("name")
        .and_then(Value::as_str)
        .filter(|n| !n.is_empty())
        .ok_or_else(|| {
            Error::invalid_input("tool", "a tools/list entry has a non-empty string name")
        })?;
    let support = tool
        .get("execution")
        .and_then(|e| e.get("taskSupport"))
        .and_then(Value::as_str)
        .and_then(TaskSupport::parse)
        .unwrap_or(TaskSupport::Forbidden);
    Ok((name.into(), support))
}

fn request(id: Id, method: &str, params: Value) -> Message {
    Message::Request {
        id,
        method: method.into(),
        params: Some(params),
    }
}

/// `tasks/get {taskId}`.
#[must_use]
pub fn get_request(id: Id, task_id: &str) -> Message {
    request(id, "tasks/get", json!({ "taskId": task_id }))
}

/// `tasks/result {taskId}` (blocks until the task is terminal).
#[must_use]
pub fn result_request(id: Id, task_id: &str) -> Message {
    request(id, "tasks/result", json!({ "taskId": task_id }))
}

/// `tasks/cancel {taskId}`.
#[must_use]
pub fn cancel_request(id: Id, task_id: &str) -> Message {
    request(id, "tasks/cancel", json!({ "taskId": task_id }))
}

/// `tasks/list {cursor?}`.
#[must_use]
pub fn list_request(id: Id, cursor: Option<&str>) -> Message {
    let params = match cursor {
        Some(c) => json!({ "cursor": c }),
        None => json!({}),
    };
    request(id, "tasks/list", params)
}
