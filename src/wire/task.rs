//! The task reader shared by both MCP revisions: one borrowed, typed pass over a task object
//! (flat 2026 `Task`/`DetailedTask`, or a 2025 `Task`), then one conversion into a
//! [`TaskView`] with the non-fatal shape problems as [`Violation`]s.

use alloc::borrow::Cow;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

use super::jsonrpc::rpc_error_from_value;
use super::Parsed;
use crate::error::{Error, Quoted, QuotedOpt};
use crate::model::Model;
use crate::status::Status;
use crate::time::parse_rfc3339_ms;
use crate::view::{InputRequest, TaskView, ToolResult, Ttl};
use crate::violation::{Rule, Violation};

/// `Some(inner)` when the field is present (even as `null`), `None` when absent.
pub(crate) fn present<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    T::deserialize(d).map(Some)
}

/// A string that borrows from the input when it can (no escapes) and owns it otherwise.
/// (`Option<Cow<str>>` would always allocate: serde borrows only a bare `Cow`.)
pub(crate) struct Str<'a>(pub Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for Str<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(core::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> serde::de::Visitor<'de> for V<'a> {
            type Value = Str<'a>;
            fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: serde::de::Error>(self, v: &'de str) -> Result<Str<'a>, E> {
                Ok(Str(Cow::Borrowed(v)))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Str<'a>, E> {
                Ok(Str(Cow::Owned(v.into())))
            }
            fn visit_string<E: serde::de::Error>(self, v: String) -> Result<Str<'a>, E> {
                Ok(Str(Cow::Owned(v)))
            }
        }
        d.deserialize_str(V(core::marker::PhantomData))
    }
}

impl core::ops::Deref for Str<'_> {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

/// A task object as written by either revision; unknown members (such as `_meta`) are skipped.
#[derive(Deserialize, Default)]
pub(crate) struct RawTask<'a> {
    #[serde(rename = "taskId", borrow, default)]
    pub task_id: Option<Str<'a>>,
    #[serde(borrow, default)]
    pub status: Option<Str<'a>>,
    #[serde(rename = "statusMessage", borrow, default)]
    pub status_message: Option<Str<'a>>,
    #[serde(rename = "createdAt", borrow, default)]
    pub created_at: Option<Str<'a>>,
    #[serde(rename = "lastUpdatedAt", borrow, default)]
    pub last_updated_at: Option<Str<'a>>,
    #[serde(rename = "ttlMs", default, deserialize_with = "present")]
    pub ttl_ms: Option<Option<u64>>,
    #[serde(rename = "ttl", default, deserialize_with = "present")]
    pub ttl: Option<Option<u64>>,
    #[serde(rename = "pollIntervalMs", default)]
    pub poll_interval_ms: Option<u64>,
    #[serde(rename = "pollInterval", default)]
    pub poll_interval: Option<u64>,
    #[serde(rename = "resultType", borrow, default)]
    pub result_type: Option<Str<'a>>,
    #[serde(rename = "inputRequests", default)]
    pub input_requests: Option<Map<String, Value>>,
    #[serde(default)]
    pub result: Option<Value>,
    #[serde(default)]
    pub error: Option<Value>,
    /// The interval and TTL members that are there but are no whole number of milliseconds
    /// (`-5`, `"1000"`): each is said, and read as absent, since the task is readable without
    /// them (the general reader only; `tasks/list` keeps them fatal).
    #[serde(skip)]
    pub not_counts: Vec<(&'a str, &'a Value)>,
}

/// Which message the task object came in; it decides which shape rules apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// 2026 `CreateTaskResult`: flat `Task`, `resultType: "task"`, no payload.
    Create2026,
    /// 2026 `GetTaskResult`: `DetailedTask`, `resultType: "complete"`.
    Get2026,
    /// 2026 `notifications/tasks` params: `DetailedTask`.
    Notify2026,
    /// 2025 `Task` (in a create, get, cancel, list or status notification).
    Task2025,
}

const WHAT: &str = "task";

fn missing(field: &str) -> Error {
    Error::Malformed {
        what: WHAT,
        reason: format!("missing {field}"),
    }
}

fn timestamp(raw: Option<&str>, name: &str, violations: &mut Vec<Violation>) -> Option<u64> {
    match raw {
        None => {
            violations.push(Violation::new(
                Rule::MissingField,
                format!("{name} is missing"),
            ));
            None
        }
        Some(t) => match parse_rfc3339_ms(t) {
            Ok(ms) => Some(ms),
            Err(_) => {
                violations.push(Violation::new(
                    Rule::MissingField,
                    format!("{name} {} is not an RFC 3339 time", Quoted(t)),
                ));
                None
            }
        },
    }
}

/// Turns a raw task into a view, checking the shape rules of `kind`.
pub(crate) fn to_view(raw: RawTask<'_>, kind: Kind) -> Result<Parsed<TaskView>, Error> {
    let model = if kind == Kind::Task2025 {
        Model::Task2025
    } else {
        Model::Task2026
    };
    let task_id = raw.task_id.ok_or_else(|| missing("taskId"))?.0;
    let status = Status::parse(model, &raw.status.ok_or_else(|| missing("status"))?)?;
    let mut v = Vec::new();

    let created_at_ms = timestamp(raw.created_at.as_deref(), "createdAt", &mut v);
    let last_updated_at_ms = timestamp(raw.last_updated_at.as_deref(), "lastUpdatedAt", &mut v);

    // This revision's members, then the other revision's spellings of the same two (M-19).
    let (ttl, ttl_name, poll, poll_name) = if model == Model::Task2025 {
        (raw.ttl, "ttl", raw.poll_interval, "pollInterval")
    } else {
        (raw.ttl_ms, "ttlMs", raw.poll_interval_ms, "pollIntervalMs")
    };
    let (other_ttl, other_poll, other) = if model == Model::Task2025 {
        let names = "task-2026's ttlMs, pollIntervalMs";
        (raw.ttl_ms.is_some(), raw.poll_interval_ms.is_some(), names)
    } else {
        let names = "task-2025's ttl, pollInterval";
        (raw.ttl.is_some(), raw.poll_interval.is_some(), names)
    };
    // A task of the other revision read as this one: said, so its interval is not lost in silence.
    let hint = if other_ttl || other_poll {
        format!("; the task has {other}: is the server on that wire?")
    } else {
        String::new()
    };
    for (name, value) in &raw.not_counts {
        v.push(Violation::new(
            Rule::MissingField,
            format!(
                "{name} {} is not a whole number of milliseconds; read as absent",
                shown(value)
            ),
        ));
    }
    let bad = |name: &str| raw.not_counts.iter().any(|(n, _)| *n == name);
    let ttl_ms = Ttl::from_member(ttl);
    if ttl_ms == Ttl::NotGiven && !bad(ttl_name) {
        v.push(Violation::new(
            Rule::MissingField,
            format!("{ttl_name} is missing (required, null for unlimited){hint}"),
        ));
    }
    // M-20: a stated interval is followed as it is (P-13), so one of years would end the
    // watch in silence.
    let poll = match poll {
        Some(ms) if ms > MAX_POLL_INTERVAL_MS => {
            v.push(Violation::new(
                Rule::MissingField,
                format!("{poll_name} {ms} is over an hour; read as an hour"),
            ));
            Some(MAX_POLL_INTERVAL_MS)
        }
        p => p,
    };
    if poll.is_none() && other_poll {
        v.push(Violation::new(
            Rule::MissingField,
            format!("{poll_name} is missing and the interval the server gave is not used{hint}"),
        ));
    }

    match (kind, raw.result_type.as_deref()) {
        (Kind::Create2026, Some("task")) => {}
        (Kind::Create2026, other) => v.push(Violation::new(
            Rule::WrongResultType,
            format!(
                "CreateTaskResult has resultType {}, expected \"task\"",
                QuotedOpt(other)
            ),
        )),
        (Kind::Get2026, Some(t)) if t != "complete" => v.push(Violation::new(
            Rule::WrongResultType,
            format!(
                "tasks/get result has resultType {}, expected \"complete\"",
                Quoted(t)
            ),
        )),
        _ => {}
    }

    let mut view = TaskView {
        task_id: task_id.into_owned(),
        status,
        status_message: raw.status_message.map(|s| s.0.into_owned()),
        created_at_ms,
        last_updated_at_ms,
        ttl_ms,
        poll_interval_ms: poll,
        input_requests: Vec::new(),
        result: None,
        error: None,
    };

    if model == Model::Task2025 {
        // A 2025 Task has no payload members; anything else is an unknown member, skipped.
        return Ok(Parsed {
            value: view,
            violations: v,
        });
    }

    if kind == Kind::Create2026 {
        for (present, name) in [
            (raw.input_requests.is_some(), "inputRequests"),
            (raw.result.is_some(), "result"),
            (raw.error.is_some(), "error"),
        ] {
            if present {
                v.push(Violation::new(
                    Rule::ResultContradictsStatus,
                    format!("CreateTaskResult carries {name}; it is a Task, not a DetailedTask"),
                ));
            }
        }
        return Ok(Parsed {
            value: view,
            violations: v,
        });
    }

    // DetailedTask: the payload follows the status.
    let wants = |s: Status| status == s;
    match raw.input_requests {
        Some(map) => {
            if !wants(Status::InputRequired) {
                v.push(Violation::new(
                    Rule::ResultContradictsStatus,
                    format!("inputRequests on a {status} task"),
                ));
            } else if map.is_empty() {
                v.push(Violation::new(
                    Rule::ResultContradictsStatus,
                    "input_required with an empty inputRequests",
                ));
            }
            view.input_requests.reserve(map.len());
            for (key, request) in map {
                if request.get("method").and_then(Value::as_str).is_none() {
                    v.push(Violation::new(
                        Rule::MissingField,
                        format!("inputRequests[{}] has no string method", Quoted(&key)),
                    ));
                }
                view.input_requests.push(InputRequest {
                    key,
                    request: request.into(),
                });
            }
        }
        None if wants(Status::InputRequired) => v.push(Violation::new(
            Rule::ResultContradictsStatus,
            "input_required without inputRequests",
        )),
        None => {}
    }
    match raw.result {
        Some(value) => {
            if !wants(Status::Completed) {
                v.push(Violation::new(
                    Rule::ResultContradictsStatus,
                    format!("result on a {status} task"),
                ));
            }
            view.result = Some(tool_result(value, &mut v));
        }
        None if wants(Status::Completed) => v.push(Violation::new(
            Rule::ResultContradictsStatus,
            "completed without result",
        )),
        None => {}
    }
    match raw.error {
        Some(value) => {
            if !wants(Status::Failed) {
                v.push(Violation::new(
                    Rule::ResultContradictsStatus,
                    format!("error on a {status} task"),
                ));
            }
            match rpc_error_from_value(value) {
                Ok(e) => view.error = Some(e),
                Err(_) => v.push(Violation::new(
                    Rule::MissingField,
                    "error is not a JSON-RPC error {code, message, data?}",
                )),
            }
        }
        None if wants(Status::Failed) => v.push(Violation::new(
            Rule::ResultContradictsStatus,
            "failed without error",
        )),
        None => {}
    }
    Ok(Parsed {
        value: view,
        violations: v,
    })
}

/// A tool result with its `isError` read out (absent is `false`; a non-boolean is a violation).
pub(crate) fn tool_result(value: Value, v: &mut Vec<Violation>) -> ToolResult {
    if !value.is_object() {
        v.push(Violation::new(
            Rule::MissingField,
            "result is not an object",
        ));
    }
    let is_error = match value.get("isError") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => {
            v.push(Violation::new(
                Rule::MissingField,
                "isError is not a boolean",
            ));
            false
        }
    };
    ToolResult {
        is_error,
        value: value.into(),
    }
}

/// M-17: the direct answer to a `tools/call` (not a task) as a tool result: [`tool_result`], and a
/// `CallToolResult` must hold its `content` list. One without reads as what it says (a
/// success unless `isError`), with a violation; one that is a task's own fields (`taskId`,
/// `status`) is named as such, since it is likely a `CreateTaskResult` that lost its envelope.
pub(crate) fn call_tool_result(value: &Value, v: &mut Vec<Violation>) -> ToolResult {
    if value.is_object() && !value.get("content").is_some_and(Value::is_array) {
        let looks_like_task = value.get("taskId").is_some() && value.get("status").is_some();
        v.push(Violation::new(
            Rule::MissingField,
            if looks_like_task {
                "CallToolResult has no content list; it holds a task's taskId and status, \
                 which a CreateTaskResult carries in `task` (2025) or with resultType \"task\" \
                 (2026)"
            } else {
                "CallToolResult has no content list"
            },
        ));
    }
    tool_result(value.clone(), v)
}

/// A member's value in a message: a number as written, a string quoted and cut short, else
/// its JSON type.
fn shown(value: &Value) -> String {
    match value {
        Value::Number(n) => alloc::string::ToString::to_string(n),
        Value::String(s) => crate::text::Text::new().q(s).done(),
        Value::Bool(_) => "(a boolean)".into(),
        Value::Array(_) => "(an array)".into(),
        Value::Object(_) => "(an object)".into(),
        Value::Null => "null".into(),
    }
}

/// The longest poll interval a task's answer is taken at (rule M-20): an hour.
pub(crate) const MAX_POLL_INTERVAL_MS: u64 = 3_600_000;

/// Reads a raw task from a JSON value.
pub(crate) fn raw_from_value<'a>(
    value: &'a Value,
    what: &'static str,
) -> Result<RawTask<'a>, Error> {
    if !value.is_object() {
        return Err(Error::Malformed {
            what,
            reason: "expected an object".into(),
        });
    }
    // Member by member, in the map's order as serde's derived reader takes them (so the first
    // bad member is the one it would name), each by the reader its field has: the same task and
    // messages, without a compiled reader of the whole struct for `Value`s (WebAssembly size).
    // The derive stays for the borrowed byte path of `tasks/get` and for `tasks/list`.
    let bad = |e: serde_json::Error| super::limits::malformed(what, &e);
    let text = |v: &'a Value| Option::<Str<'a>>::deserialize(v).map_err(bad);
    let count = |v: &Value| Option::<u64>::deserialize(v).map_err(bad);
    let mut raw = RawTask::default();
    for (key, v) in value.as_object().into_iter().flatten() {
        match key.as_str() {
            "taskId" => raw.task_id = text(v)?,
            "status" => raw.status = text(v)?,
            "statusMessage" => raw.status_message = text(v)?,
            "createdAt" => raw.created_at = text(v)?,
            "lastUpdatedAt" => raw.last_updated_at = text(v)?,
            "resultType" => raw.result_type = text(v)?,
            "ttlMs" | "ttl" | "pollIntervalMs" | "pollInterval" => match count(v) {
                Ok(n) => match key.as_str() {
                    "ttlMs" => raw.ttl_ms = Some(n),
                    "ttl" => raw.ttl = Some(n),
                    "pollIntervalMs" => raw.poll_interval_ms = n,
                    _ => raw.poll_interval = n,
                },
                Err(_) => raw.not_counts.push((key.as_str(), v)),
            },
            "inputRequests" => {
                raw.input_requests = Option::<Map<String, Value>>::deserialize(v).map_err(bad)?;
            }
            "result" => raw.result = (!v.is_null()).then(|| v.clone()),
            "error" => raw.error = (!v.is_null()).then(|| v.clone()),
            _ => {}
        }
    }
    Ok(raw)
}

#[cfg(test)]
mod tests {
    use alloc::format;
    use alloc::string::{String, ToString};

    use serde_json::json;

    use super::*;

    fn show(r: Result<RawTask<'_>, Error>) -> String {
        let s = |v: &Option<Str<'_>>| v.as_deref().map(String::from);
        match r {
            Ok(r) => format!(
                "{:?}",
                (
                    (s(&r.task_id), s(&r.status), s(&r.status_message)),
                    (s(&r.created_at), s(&r.last_updated_at), s(&r.result_type)),
                    (r.ttl_ms, r.ttl, r.poll_interval_ms, r.poll_interval),
                    (r.input_requests, r.result, r.error),
                )
            ),
            Err(e) => e.to_string(),
        }
    }

    /// The member-by-member reader reads what the derived reader reads, and fails as it does
    /// (the first bad member in the map's order, serde's words).
    #[test]
    fn raw_tasks_read_as_derived() {
        let cases = [
            json!({"taskId": "t", "status": "working", "statusMessage": "m", "createdAt": "c",
                "lastUpdatedAt": "u", "resultType": "complete", "ttlMs": 5, "ttl": null,
                "pollIntervalMs": 7, "pollInterval": 8, "inputRequests": {"k": {"a": 1}},
                "result": {"r": [1]}, "error": 3, "_meta": {"x": 1}}),
            json!({}),
            json!({"taskId": null, "status": null, "ttlMs": null, "pollIntervalMs": null,
                "inputRequests": null, "result": null, "error": null}),
            json!({"taskId": 5}),
            json!({"status": ["working"]}),
            json!({"inputRequests": [1]}),
            json!({"zz": 1, "taskId": 1, "status": 2, "ttlMs": "x"}),
            json!({"taskId": "a\"b", "result": false}),
        ];
        for v in &cases {
            let derived =
                RawTask::deserialize(v).map_err(|e| super::super::limits::malformed("t", &e));
            assert_eq!(show(raw_from_value(v, "t")), show(derived), "{v}");
        }
        assert_eq!(
            show(raw_from_value(&json!({"taskId": 5, "ttlMs": "x"}), "t")),
            "malformed t: invalid type: integer `5`, expected a string"
        );
        assert_eq!(
            show(raw_from_value(&json!([1]), "t")),
            "malformed t: expected an object"
        );
    }

    /// Rule M-20: an interval or TTL that is no whole number of milliseconds is said and read
    /// as absent; the task is still read.
    #[test]
    fn a_bad_interval_or_ttl_is_a_violation_not_an_unreadable_task() {
        let v = json!({"taskId": "t", "status": "working", "createdAt": "2026-01-01T00:00:00Z",
            "lastUpdatedAt": "2026-01-01T00:00:00Z", "resultType": "task",
            "ttlMs": "forever", "pollIntervalMs": -5});
        let parsed = to_view(raw_from_value(&v, "t").unwrap(), Kind::Create2026).unwrap();
        assert_eq!(parsed.value.task_id, "t");
        assert_eq!(parsed.value.poll_interval_ms, None);
        assert_eq!(parsed.value.ttl_ms, Ttl::NotGiven);
        let details: Vec<&str> = parsed
            .violations
            .iter()
            .map(|v| v.detail.as_str())
            .collect();
        assert_eq!(
            details,
            [
                "pollIntervalMs -5 is not a whole number of milliseconds; read as absent",
                r#"ttlMs "forever" is not a whole number of milliseconds; read as absent"#,
            ]
        );
        let v25 = json!({"taskId": "t", "status": "working", "createdAt": "2026-01-01T00:00:00Z",
            "lastUpdatedAt": "2026-01-01T00:00:00Z", "ttl": null, "pollInterval": 1.5});
        let parsed = to_view(raw_from_value(&v25, "t").unwrap(), Kind::Task2025).unwrap();
        assert_eq!(parsed.violations.len(), 1, "{:?}", parsed.violations);
        assert_eq!(parsed.value.poll_interval_ms, None);
        // An interval of ages is said, and followed as an hour.
        let v = json!({"taskId": "t", "status": "working", "createdAt": "2026-01-01T00:00:00Z",
            "lastUpdatedAt": "2026-01-01T00:00:00Z", "ttlMs": null, "resultType": "complete",
            "pollIntervalMs": u64::MAX});
        let parsed = to_view(raw_from_value(&v, "t").unwrap(), Kind::Get2026).unwrap();
        assert_eq!(parsed.value.poll_interval_ms, Some(MAX_POLL_INTERVAL_MS));
        assert_eq!(
            parsed.violations[0].detail,
            "pollIntervalMs 18446744073709551615 is over an hour; read as an hour"
        );
    }
}
