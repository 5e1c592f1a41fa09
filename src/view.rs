//! What a host knows about one task or job at one moment: the parsed, wire-independent form that
//! the codecs in [`crate::wire`] produce, the reference servers in [`crate::server`] answer, and
//! the trackers in [`crate::tracker`] consume.

use alloc::string::String;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use crate::status::Status;
use crate::Json;

/// A JSON-RPC error object `{code, message, data?}`. Compare codes, never message text.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RpcError {
    /// The JSON-RPC error code.
    pub code: i64,
    /// The message, for people only.
    #[serde(default)]
    pub message: String,
    /// Optional structured data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Json>,
}

// Read member by member from a `Value` object (`crate::tagged`): a derived reader would also
// compile an array form nobody writes.
impl<'de> Deserialize<'de> for RpcError {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut f = crate::tagged::members(d, "struct RpcError")?;
        Ok(RpcError {
            code: f.req("code")?,
            message: f.def("message")?,
            data: f.opt("data")?,
        })
    }
}

/// JSON-RPC and MCP error codes the rules refer to.
pub mod codes {
    /// Unknown or expired task id (both revisions); 2025: cancel of a terminal task.
    pub const INVALID_PARAMS: i64 = -32602;
    /// Method not found: `tasks/result` and `tasks/list` on 2026.
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// Internal error.
    pub const INTERNAL_ERROR: i64 = -32603;
    /// Invalid request.
    pub const INVALID_REQUEST: i64 = -32600;
    /// 2026: the client did not declare the tasks capability.
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: i64 = -32021;
    /// 2026 Streamable HTTP: `Mcp-Name` / `Mcp-Method` header missing or not matching the body.
    pub const HEADER_MISMATCH: i64 = -32020;
}

/// A tool result as received (`CallToolResult`), with its `isError` flag read out.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ToolResult {
    /// `isError: true`: the tool ran and reported a business failure.
    pub is_error: bool,
    /// The whole result object as received.
    pub value: Json,
}

// Read member by member from a `Value` object (`crate::tagged`): a derived reader would also
// compile an array form nobody writes.
impl<'de> Deserialize<'de> for ToolResult {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut f = crate::tagged::members(d, "struct ToolResult")?;
        Ok(ToolResult {
            is_error: f.req("is_error")?,
            value: f.req("value")?,
        })
    }
}

/// One outstanding input request of an `input_required` task: a key and what is asked.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct InputRequest {
    /// The key, unique over the task's life. Echo it back exactly.
    pub key: String,
    /// The request (`elicitation/create`, `sampling/createMessage`, `roots/list`).
    pub request: Json,
}

// Read member by member from a `Value` object (`crate::tagged`): a derived reader would also
// compile an array form nobody writes.
impl<'de> Deserialize<'de> for InputRequest {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut f = crate::tagged::members(d, "struct InputRequest")?;
        Ok(InputRequest {
            key: f.req("key")?,
            request: f.req("request")?,
        })
    }
}

/// A task's `ttlMs` (2026) or `ttl` (2025) as one answer states it. The member is required on
/// every task, with `null` for no limit, so an answer without it said nothing about the TTL: the
/// tracker keeps the TTL already in force then (rule P-7), where `null` lifts it.
///
/// In JSON (views, vectors, snapshots) it is the member itself: absent, `null` or a number.
///
/// ```
/// use longcall::view::{TaskView, Ttl};
/// let read = |s: &str| serde_json::from_str::<TaskView>(s).unwrap().ttl_ms;
/// assert_eq!(read(r#"{"task_id":"t","status":"working"}"#), Ttl::NotGiven);
/// assert_eq!(read(r#"{"task_id":"t","status":"working","ttl_ms":null}"#), Ttl::Unlimited);
/// assert_eq!(read(r#"{"task_id":"t","status":"working","ttl_ms":5}"#), Ttl::Ms(5));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Ttl {
    /// The answer did not carry the member (a shape violation on the wire).
    #[default]
    NotGiven,
    /// `null`: the task has no time limit.
    Unlimited,
    /// The lifetime in milliseconds, counted from creation.
    Ms(u64),
}

impl Ttl {
    /// A TTL a server states: `None` is unlimited.
    #[must_use]
    pub fn stated(ms: Option<u64>) -> Ttl {
        ms.map_or(Ttl::Unlimited, Ttl::Ms)
    }

    /// The wire member: `None` absent, `Some(None)` `null`, `Some(Some(ms))` a number.
    #[must_use]
    pub fn member(self) -> Option<Option<u64>> {
        match self {
            Ttl::NotGiven => None,
            Ttl::Unlimited => Some(None),
            Ttl::Ms(ms) => Some(Some(ms)),
        }
    }

    /// From the wire member (the inverse of [`Ttl::member`]).
    #[must_use]
    pub fn from_member(member: Option<Option<u64>>) -> Ttl {
        member.map_or(Ttl::NotGiven, Ttl::stated)
    }

    /// True when the answer did not state the TTL.
    #[must_use]
    pub fn is_not_given(&self) -> bool {
        *self == Ttl::NotGiven
    }
}

impl Serialize for Ttl {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // `NotGiven` is skipped by the containing struct; alone it writes `null` like unlimited.
        match self {
            Ttl::Ms(ms) => s.serialize_u64(*ms),
            Ttl::NotGiven | Ttl::Unlimited => s.serialize_none(),
        }
    }
}

impl<'de> Deserialize<'de> for Ttl {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Ttl, D::Error> {
        // Reached only for a member that is present: absent is the `#[serde(default)]`.
        Option::<u64>::deserialize(d).map(Ttl::stated)
    }
}

/// One observation of a task: what `tasks/get` (or a notification) said.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TaskView {
    /// The server-generated task id.
    pub task_id: String,
    /// The status.
    pub status: Status,
    /// Optional human-readable status message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// `createdAt` as milliseconds since the Unix epoch, when it parsed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at_ms: Option<u64>,
    /// `lastUpdatedAt` as milliseconds since the Unix epoch, when it parsed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_updated_at_ms: Option<u64>,
    /// `ttlMs` (2026) or `ttl` (2025): lifetime from creation, unlimited, or not stated.
    #[serde(default, skip_serializing_if = "Ttl::is_not_given")]
    pub ttl_ms: Ttl,
    /// `pollIntervalMs` (2026) or `pollInterval` (2025): a floor for the next poll.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_interval_ms: Option<u64>,
    /// 2026 `input_required`: every outstanding input request.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub input_requests: Vec<InputRequest>,
    /// 2026 `completed` (or a 2025 `tasks/result` answer): the tool result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<ToolResult>,
    /// 2026 `failed` (or a 2025 `tasks/result` error): the JSON-RPC error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<RpcError>,
}

// Read member by member from a `Value` object (`crate::tagged`): a derived reader would also
// compile an array form nobody writes.
impl<'de> Deserialize<'de> for TaskView {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut f = crate::tagged::members(d, "struct TaskView")?;
        Ok(TaskView {
            task_id: f.req("task_id")?,
            status: f.req("status")?,
            status_message: f.opt("status_message")?,
            created_at_ms: f.opt("created_at_ms")?,
            last_updated_at_ms: f.opt("last_updated_at_ms")?,
            ttl_ms: f.def("ttl_ms")?,
            poll_interval_ms: f.opt("poll_interval_ms")?,
            input_requests: f.def("input_requests")?,
            result: f.opt("result")?,
            error: f.opt("error")?,
        })
    }
}

impl TaskView {
    /// A task as a server states it at least: its id and status, nothing else (no TTL, no
    /// interval, no payload). Add the rest with the `with_*` methods.
    ///
    /// ```
    /// use longcall::view::{InputRequest, TaskView, Ttl};
    /// use longcall::Status;
    /// let t = TaskView::new("task_1", Status::InputRequired)
    ///     .with_ttl_ms(60_000)
    ///     .with_poll_interval_ms(2_000)
    ///     .with_input_request(InputRequest { key: "k1".into(), request: serde_json::json!({}).into() });
    /// assert_eq!((t.ttl_ms, t.poll_interval_ms, t.input_requests.len()), (Ttl::Ms(60_000), Some(2_000), 1));
    /// ```
    #[must_use]
    pub fn new(task_id: impl Into<String>, status: Status) -> TaskView {
        TaskView {
            task_id: task_id.into(),
            status,
            status_message: None,
            created_at_ms: None,
            last_updated_at_ms: None,
            ttl_ms: Ttl::NotGiven,
            poll_interval_ms: None,
            input_requests: Vec::new(),
            result: None,
            error: None,
        }
    }

    /// With `ttlMs` stated as a number of milliseconds.
    #[must_use]
    pub fn with_ttl_ms(mut self, ttl_ms: u64) -> TaskView {
        self.ttl_ms = Ttl::Ms(ttl_ms);
        self
    }

    /// With `ttlMs` as given (for example [`Ttl::Unlimited`], `null` on the wire).
    #[must_use]
    pub fn with_ttl(mut self, ttl: Ttl) -> TaskView {
        self.ttl_ms = ttl;
        self
    }

    /// With `pollIntervalMs`.
    #[must_use]
    pub fn with_poll_interval_ms(mut self, interval_ms: u64) -> TaskView {
        self.poll_interval_ms = Some(interval_ms);
        self
    }

    /// With one more outstanding input request.
    #[must_use]
    pub fn with_input_request(mut self, request: InputRequest) -> TaskView {
        self.input_requests.push(request);
        self
    }

    /// With the tool result (2026 `completed`).
    #[must_use]
    pub fn with_result(mut self, result: ToolResult) -> TaskView {
        self.result = Some(result);
        self
    }

    /// With the JSON-RPC error (2026 `failed`).
    #[must_use]
    pub fn with_error(mut self, error: RpcError) -> TaskView {
        self.error = Some(error);
        self
    }
}

/// One observation of a job: what `jobs_get` or `jobs_wait` said about it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JobView {
    /// The job id.
    pub id: String,
    /// The status.
    pub status: Status,
    /// The job's result, when completed and included.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Json>,
    /// The job's error body, when failed or expired.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<Json>,
}

// Read member by member from a `Value` object (`crate::tagged`): a derived reader would also
// compile an array form nobody writes.
impl<'de> Deserialize<'de> for JobView {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut f = crate::tagged::members(d, "struct JobView")?;
        Ok(JobView {
            id: f.req("id")?,
            status: f.req("status")?,
            result: f.opt("result")?,
            error: f.opt("error")?,
        })
    }
}

/// A Sume API error envelope `{error: {code, message, details}, request_id}` with its HTTP status.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ApiError {
    /// The HTTP status.
    pub http_status: u16,
    /// `error.code`, e.g. `job_generation_already_started`.
    pub code: String,
    /// `error.message`, for people only.
    #[serde(default)]
    pub message: String,
    /// `error.details`, e.g. `{cancelable: false}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Json>,
    /// `request_id`, to show with the error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
}

// Read member by member from a `Value` object (`crate::tagged`): a derived reader would also
// compile an array form nobody writes.
impl<'de> Deserialize<'de> for ApiError {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut f = crate::tagged::members(d, "struct ApiError")?;
        Ok(ApiError {
            http_status: f.req("http_status")?,
            code: f.req("code")?,
            message: f.def("message")?,
            details: f.opt("details")?,
            request_id: f.opt("request_id")?,
        })
    }
}
