//! The request gate of an MCP tasks server: what a request must carry before any task is looked
//! at, and the error (with its HTTP status) that answers it when it does not.
//!
//! The same rules judge both parties (h11's rule 2): a server calls [`check_request`] and
//! [`check_task_support`] before it dispatches, and the observer ([`crate::endpoint::observer`])
//! calls [`rejections`] on every client request of a transcript, so a rejected probe and a rule a
//! server let through are told apart by one table.
//!
//! Rules, written once:
//!
//! * **E-20 Capability (2026).** `tasks/get`, `tasks/update` and `tasks/cancel` carry
//!   `params._meta["io.modelcontextprotocol/clientCapabilities"].extensions
//!   ["io.modelcontextprotocol/tasks"]` on every request; without it the answer is `-32021`
//!   with `data.requiredCapabilities.extensions["io.modelcontextprotocol/tasks"]`.
//! * **E-21 `Mcp-Method` (2026, Streamable HTTP).** Every request carries the header `Mcp-Method`
//!   equal to the body's `method`; missing or different is `-32020`.
//! * **E-22 `Mcp-Name` (2026, Streamable HTTP).** `tools/call` carries `Mcp-Name: <params.name>`,
//!   `tasks/get|update|cancel` carry `Mcp-Name: <params.taskId>`; missing or different is
//!   `-32020`. Header values are trimmed and may use the `=?base64?...?=` sentinel.
//! * **E-23 Protocol version header.** An `MCP-Protocol-Version` header, when present, names the
//!   revision the server speaks on this endpoint; any other value is `-32600` (HTTP 400).
//! * **E-24 A tool that requires a task.** 2026: a tool the server runs only as a task, called
//!   without the capability of E-20, is `-32021` (the server cannot serve a non-declaring
//!   client). 2025 (`execution.taskSupport`): `required` without `params.task`, or `forbidden`
//!   with it, is `-32601`.
//! * **E-25 Methods per revision.** 2026 has `tasks/get`, `tasks/update`, `tasks/cancel`; its
//!   removed `tasks/result` and `tasks/list` are `-32601`. 2025 has `tasks/get`, `tasks/result`,
//!   `tasks/list`, `tasks/cancel`; `tasks/update` does not exist there: `-32601`.
//! * **E-26 HTTP status per error code.** [`HTTP_STATUS`]: `-32601` is 404, `-32603` is 500,
//!   every other JSON-RPC error (parse, invalid request, invalid params, `-32020`, `-32021`) is
//!   400.
//! * **E-27 Order.** Headers (E-23, E-21, E-22) are checked first, then the method (E-25), then
//!   the capability (E-20): a server answers the first rejection; an observer accepts any of
//!   them as the correct answer to a request that breaks several.
//!
//! ```
//! use longcall::server::gate::{check_request, Headers, GateRule};
//! use longcall::Model;
//! use serde_json::json;
//! let params = json!({"taskId": "t1"});
//! let headers = Headers { mcp_method: Some("tasks/get"), mcp_name: Some("t1"), protocol_version: None };
//! let no = check_request(Model::Task2026, "tasks/get", Some(&params), Some(&headers)).unwrap_err();
//! assert_eq!((no.rule, no.error.code, no.http_status), (GateRule::MissingCapability, -32021, 400));
//! ```

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use serde::Serialize;
use serde_json::Value;

use crate::error::Quoted;
use crate::model::Model;
use crate::view::{codes, RpcError};
use crate::violation::Rule;
use crate::wire::{mcp2025, mcp2026};

/// Which gate rule a request broke.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum GateRule {
    /// E-20: a 2026 `tasks/*` request without the tasks capability.
    MissingCapability,
    /// E-21: `Mcp-Method` missing or not the body's method.
    McpMethodHeader,
    /// E-22: `Mcp-Name` missing or not the body's name / taskId.
    McpNameHeader,
    /// E-23: an `MCP-Protocol-Version` header naming another revision.
    ProtocolVersion,
    /// E-24: a tool that requires a task, called without one (or one that forbids it, with one).
    TaskSupport,
    /// E-25: a method the revision removed or never had.
    MethodNotInRevision,
    /// E-53: a body that is not a JSON-RPC request ([`super::answer::read_request`]).
    Envelope,
    /// E-54: a param the method needs is missing or mistyped ([`super::answer::check_params`]).
    Params,
    /// E-55: a method or tool the server does not serve.
    NotServed,
}

impl GateRule {
    /// The stable id of the rule in the rule book.
    #[must_use]
    pub const fn id(self) -> &'static str {
        match self {
            GateRule::MissingCapability => "E-20",
            GateRule::McpMethodHeader => "E-21",
            GateRule::McpNameHeader => "E-22",
            GateRule::ProtocolVersion => "E-23",
            GateRule::TaskSupport => "E-24",
            GateRule::MethodNotInRevision => "E-25",
            GateRule::Envelope => "E-53",
            GateRule::Params => "E-54",
            GateRule::NotServed => "E-55",
        }
    }

    /// The violation a client commits by sending such a request (what `longcall check` reports
    /// when the server does not reject it).
    #[must_use]
    pub const fn violation(self) -> Rule {
        match self {
            GateRule::MissingCapability | GateRule::TaskSupport => Rule::MissingCapability,
            GateRule::McpMethodHeader | GateRule::McpNameHeader | GateRule::ProtocolVersion => {
                Rule::McpNameHeader
            }
            GateRule::MethodNotInRevision => Rule::WrongRevisionMethod,
            // What a server answers beyond the gate (E-53 to E-55): [`rejections`] never lists
            // these, so the observer never reports them; a request the server cannot read or
            // serve lacks what it needs.
            GateRule::Envelope | GateRule::Params | GateRule::NotServed => Rule::MissingField,
        }
    }
}

/// A rejected request: the JSON-RPC error to answer and the HTTP status to send it with.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Rejection {
    /// The rule that was broken.
    pub rule: GateRule,
    /// The error object (`error` member of the JSON-RPC answer).
    pub error: RpcError,
    /// The HTTP status for Streamable HTTP (E-26).
    pub http_status: u16,
}

impl Rejection {
    fn new(rule: GateRule, code: i64, message: String) -> Rejection {
        let error = if code == codes::MISSING_REQUIRED_CLIENT_CAPABILITY {
            mcp2026::missing_capability_error(&message)
        } else {
            RpcError {
                code,
                message,
                data: None,
            }
        };
        Rejection {
            rule,
            http_status: http_status(code),
            error,
        }
    }

    /// The answer to send for this refusal of request `id`: its HTTP status (a 413 for a body
    /// over the limit, where the code alone would say 400) and the JSON-RPC error text.
    ///
    /// ```
    /// use longcall::server::answer::{read_request, Incoming};
    /// let big = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"a":"{}"}}}}"#, "x".repeat(5 << 20));
    /// let Incoming::Refused { id, rejection } = read_request(big.as_bytes()) else { unreachable!() };
    /// let (status, body) = rejection.answer_text(&id);
    /// assert_eq!(status, 413);
    /// assert!(body.contains("-32600"));
    /// ```
    #[must_use]
    pub fn answer_text(&self, id: &crate::wire::Id) -> (u16, String) {
        let (_, body) = super::answer::answer_text(id, Err(&self.error));
        (self.http_status, body)
    }
}

/// The HTTP headers of a Streamable HTTP request that the gate reads (raw values as received).
/// A transport without headers (stdio) passes no `Headers` at all.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Headers<'a> {
    /// `Mcp-Method`.
    pub mcp_method: Option<&'a str>,
    /// `Mcp-Name`.
    pub mcp_name: Option<&'a str>,
    /// `MCP-Protocol-Version`.
    pub protocol_version: Option<&'a str>,
}

/// E-26: the HTTP status a JSON-RPC error code is sent with. The first matching row wins; the
/// last row is the default.
#[rustfmt::skip]
pub const HTTP_STATUS: &[(Option<i64>, u16)] = &[
    (Some(codes::METHOD_NOT_FOUND), 404),
    (Some(codes::INTERNAL_ERROR),   500),
    (None,                          400),
];

/// E-26: the HTTP status for an error `code`.
#[must_use]
pub fn http_status(code: i64) -> u16 {
    HTTP_STATUS
        .iter()
        .find(|(c, _)| c.is_none_or(|c| c == code))
        .map_or(400, |(_, s)| *s)
}

/// E-25: which `tasks/*` methods each revision has. Methods outside `tasks/` are not the gate's.
#[rustfmt::skip]
pub const TASK_METHODS: &[(Model, &str, bool)] = &[
    (Model::Task2026, "tasks/get",    true),
    (Model::Task2026, "tasks/update", true),
    (Model::Task2026, "tasks/cancel", true),
    (Model::Task2026, "tasks/result", false),
    (Model::Task2026, "tasks/list",   false),
    (Model::Task2025, "tasks/get",    true),
    (Model::Task2025, "tasks/result", true),
    (Model::Task2025, "tasks/list",   true),
    (Model::Task2025, "tasks/cancel", true),
    (Model::Task2025, "tasks/update", false),
];

/// E-25: whether `method` exists in `model` (methods the table does not list are not the gate's
/// concern and count as existing).
#[must_use]
pub fn method_exists(model: Model, method: &str) -> bool {
    TASK_METHODS
        .iter()
        .find(|(m, name, _)| *m == model && *name == method)
        .is_none_or(|(_, _, exists)| *exists)
}

/// Whether `params` declare the 2026 tasks capability in their `_meta` (E-20).
#[must_use]
pub fn has_capability(params: Option<&Value>) -> bool {
    params
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get(mcp2026::CLIENT_CAPABILITIES_META))
        .and_then(|c| c.get("extensions"))
        .and_then(|e| e.get(mcp2026::EXTENSION))
        .is_some()
}

/// The 2026 methods that need the capability (E-20) and name a task in `Mcp-Name` (E-22).
fn is_task_method(method: &str) -> bool {
    matches!(method, "tasks/get" | "tasks/update" | "tasks/cancel")
}

/// A header value as sent: trimmed, and the `=?base64?...?=` sentinel decoded.
#[must_use]
pub fn header_value(raw: &str) -> String {
    let s = raw.trim();
    if let Some(inner) = s
        .strip_prefix("=?base64?")
        .and_then(|r| r.strip_suffix("?="))
    {
        if let Some(bytes) = base64_decode(inner) {
            if let Ok(text) = String::from_utf8(bytes) {
                return text;
            }
        }
    }
    String::from(s)
}

fn base64_decode(s: &str) -> Option<Vec<u8>> {
    let val = |c: u8| -> Option<u32> {
        Some(u32::from(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        }))
    };
    let body = s.trim_end_matches('=');
    let mut out = Vec::with_capacity(body.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in body.bytes() {
        acc = (acc << 6) | val(c)?;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push(((acc >> bits) & 0xff) as u8);
        }
    }
    Some(out)
}

fn str_param<'a>(params: Option<&'a Value>, key: &str) -> Option<&'a str> {
    params.and_then(|p| p.get(key)).and_then(Value::as_str)
}

/// Every gate rule the request breaks, in the order of E-27 (empty: the request passes the gate).
/// `headers` is `None` on a transport without HTTP headers. An observer uses the whole list
/// (any of these errors is a correct answer); a server answers the first ([`check_request`]).
pub fn rejections(
    model: Model,
    method: &str,
    params: Option<&Value>,
    headers: Option<&Headers<'_>>,
) -> Vec<Rejection> {
    let mut out = Vec::new();
    let y26 = model == Model::Task2026;
    if let Some(h) = headers {
        // E-23
        if let Some(v) = h.protocol_version {
            let speaks = if y26 {
                mcp2026::PROTOCOL_VERSION
            } else {
                mcp2025::PROTOCOL_VERSION
            };
            if v.trim() != speaks {
                out.push(Rejection::new(
                    GateRule::ProtocolVersion,
                    codes::INVALID_REQUEST,
                    format!(
                        "MCP-Protocol-Version {} is not {speaks}, the revision this endpoint speaks",
                        Quoted(v)
                    ),
                ));
            }
        }
        if y26 {
            // E-21
            match h.mcp_method.map(header_value) {
                // A 2025-11-25 client sends no such header: say which revision is served, as
                // that client's author would otherwise read it as a bug of their own.
                None => out.push(Rejection::new(
                    GateRule::McpMethodHeader,
                    codes::HEADER_MISMATCH,
                    format!(
                        "{method} request without an Mcp-Method header (this endpoint speaks \
                         {}, whose clients send one; a {} client sends none)",
                        mcp2026::PROTOCOL_VERSION,
                        mcp2025::PROTOCOL_VERSION
                    ),
                )),
                Some(m) if m != method => out.push(Rejection::new(
                    GateRule::McpMethodHeader,
                    codes::HEADER_MISMATCH,
                    format!("Mcp-Method header {} on a {method} request", Quoted(&m)),
                )),
                Some(_) => {}
            }
            // E-22
            let (want, what) = if method == "tools/call" {
                (str_param(params, "name"), "name")
            } else if is_task_method(method) {
                (str_param(params, "taskId"), "taskId")
            } else {
                (None, "")
            };
            if let Some(want) = want {
                match h.mcp_name.map(header_value) {
                    None => out.push(Rejection::new(
                        GateRule::McpNameHeader,
                        codes::HEADER_MISMATCH,
                        format!("{method} request without an Mcp-Name header"),
                    )),
                    Some(n) if n != want => out.push(Rejection::new(
                        GateRule::McpNameHeader,
                        codes::HEADER_MISMATCH,
                        format!(
                            "Mcp-Name header {} differs from the body's {what} {}",
                            Quoted(&n),
                            Quoted(want)
                        ),
                    )),
                    Some(_) => {}
                }
            }
        }
    }
    // E-25
    if !method_exists(model, method) {
        out.push(Rejection::new(
            GateRule::MethodNotInRevision,
            codes::METHOD_NOT_FOUND,
            format!("{method} does not exist in {model}"),
        ));
    } else if y26 && is_task_method(method) && !has_capability(params) {
        // E-20
        out.push(Rejection::new(
            GateRule::MissingCapability,
            codes::MISSING_REQUIRED_CLIENT_CAPABILITY,
            format!(
                "{method} targets the tasks extension ({}); the request did not declare it in params._meta",
                mcp2026::EXTENSION
            ),
        ));
    }
    out
}

/// The first gate rule the request breaks (E-27), as the error to answer.
///
/// Call it for every request before dispatching it; `Err` is the whole answer.
pub fn check_request(
    model: Model,
    method: &str,
    params: Option<&Value>,
    headers: Option<&Headers<'_>>,
) -> Result<(), Rejection> {
    match rejections(model, method, params, headers)
        .into_iter()
        .next()
    {
        Some(r) => Err(r),
        None => Ok(()),
    }
}

/// How a tool may run (2025 `execution.taskSupport`; on 2026 the server's own choice per tool).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskSupport {
    /// Never as a task (2025 `forbidden`, the default).
    Forbidden,
    /// As a task when the client asks (2026: declares the capability).
    Optional,
    /// Only as a task.
    Required,
}

crate::tagged::unit_enum!(
    TaskSupport,
    "enum TaskSupport",
    [
        (TaskSupport::Forbidden, "forbidden"),
        (TaskSupport::Optional, "optional"),
        (TaskSupport::Required, "required"),
    ]
);

impl TaskSupport {
    /// Reads `forbidden | optional | required` (2025 wire) or the example server's `never`.
    #[must_use]
    pub fn parse(s: &str) -> Option<TaskSupport> {
        match s {
            "forbidden" | "never" => Some(TaskSupport::Forbidden),
            "optional" => Some(TaskSupport::Optional),
            "required" => Some(TaskSupport::Required),
            _ => None,
        }
    }
}

/// Whether a `tools/call` of a tool with `support` runs as a task (`Ok(true)`), synchronously
/// (`Ok(false)`), or is rejected (E-24). `params` are the `tools/call` params.
pub fn check_task_support(
    model: Model,
    tool: &str,
    support: TaskSupport,
    params: Option<&Value>,
) -> Result<bool, Rejection> {
    if model == Model::Task2026 {
        let capable = has_capability(params);
        return match support {
            TaskSupport::Required if !capable => Err(Rejection::new(
                GateRule::TaskSupport,
                codes::MISSING_REQUIRED_CLIENT_CAPABILITY,
                format!(
                    "tool {} requires a task; declare {} on the request",
                    Quoted(tool),
                    mcp2026::EXTENSION
                ),
            )),
            TaskSupport::Forbidden => Ok(false),
            _ => Ok(capable),
        };
    }
    let asked = params.and_then(|p| p.get("task")).is_some();
    match (support, asked) {
        (TaskSupport::Required, false) => Err(Rejection::new(
            GateRule::TaskSupport,
            codes::METHOD_NOT_FOUND,
            format!(
                "tool {} requires task augmentation (params.task)",
                Quoted(tool)
            ),
        )),
        (TaskSupport::Forbidden, true) => Err(Rejection::new(
            GateRule::TaskSupport,
            codes::METHOD_NOT_FOUND,
            format!("tool {} does not support tasks", Quoted(tool)),
        )),
        (_, asked) => Ok(asked),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn caps(mut p: Value) -> Value {
        mcp2026::declare_capability(&mut p);
        p
    }

    const H: Headers<'static> = Headers {
        mcp_method: Some("tasks/get"),
        mcp_name: Some("t1"),
        protocol_version: Some("2026-07-28"),
    };

    #[test]
    fn a_well_formed_2026_request_passes() {
        let p = caps(json!({"taskId": "t1"}));
        assert_eq!(
            check_request(Model::Task2026, "tasks/get", Some(&p), Some(&H)),
            Ok(())
        );
        // stdio: no headers, nothing to check but the body
        assert_eq!(
            check_request(Model::Task2026, "tasks/get", Some(&p), None),
            Ok(())
        );
    }

    /// Rules E-20, E-21, E-22, E-23, E-25.

    #[test]
    fn each_rule_has_its_code_and_status() {
        let p = caps(json!({"taskId": "t1"}));
        let r = |m, params: &Value, h: Option<&Headers>| {
            check_request(Model::Task2026, m, Some(params), h).unwrap_err()
        };
        let e = r("tasks/get", &json!({"taskId": "t1"}), Some(&H));
        assert_eq!(
            (e.rule, e.error.code, e.http_status),
            (GateRule::MissingCapability, -32021, 400)
        );
        assert!(
            e.error.data.unwrap()["requiredCapabilities"]["extensions"][mcp2026::EXTENSION]
                .is_object()
        );
        let h = Headers {
            mcp_method: Some("tasks/cancel"),
            ..H
        };
        let e = r("tasks/get", &p, Some(&h));
        assert_eq!(
            (e.rule, e.error.code, e.http_status),
            (GateRule::McpMethodHeader, -32020, 400)
        );
        // No header at all, as a 2025-11-25 client sends: the refusal says which revision is here.
        let h = Headers {
            mcp_method: None,
            ..H
        };
        let e = r("initialize", &json!({}), Some(&h));
        assert_eq!(e.rule, GateRule::McpMethodHeader);
        assert!(
            e.error.message.contains("speaks 2026-07-28")
                && e.error.message.contains("a 2025-11-25 client sends none"),
            "{}",
            e.error.message
        );
        let h = Headers {
            mcp_name: Some("other"),
            ..H
        };
        assert_eq!(r("tasks/get", &p, Some(&h)).rule, GateRule::McpNameHeader);
        let h = Headers {
            mcp_name: None,
            ..H
        };
        assert_eq!(r("tasks/get", &p, Some(&h)).rule, GateRule::McpNameHeader);
        let h = Headers {
            protocol_version: Some("2025-11-25"),
            ..H
        };
        let e = r("tasks/get", &p, Some(&h));
        assert_eq!((e.rule, e.error.code), (GateRule::ProtocolVersion, -32600));
        let h = Headers {
            mcp_method: Some("tasks/result"),
            mcp_name: None,
            ..H
        };
        let e = r("tasks/result", &p, Some(&h));
        assert_eq!(
            (e.rule, e.error.code, e.http_status),
            (GateRule::MethodNotInRevision, -32601, 404)
        );
        assert_eq!(
            check_request(Model::Task2025, "tasks/update", None, None)
                .unwrap_err()
                .rule,
            GateRule::MethodNotInRevision
        );
        assert_eq!(
            check_request(Model::Task2025, "tasks/result", None, None),
            Ok(())
        );
    }

    /// Rules E-27.

    #[test]
    fn headers_come_first_and_every_rejection_is_listed() {
        let h = Headers {
            mcp_method: Some("x"),
            ..H
        };
        let all = rejections(
            Model::Task2026,
            "tasks/get",
            Some(&json!({"taskId": "t1"})),
            Some(&h),
        );
        let rules: Vec<GateRule> = all.iter().map(|r| r.rule).collect();
        assert_eq!(
            rules,
            [GateRule::McpMethodHeader, GateRule::MissingCapability]
        );
    }

    #[test]
    fn base64_sentinel_header_values_are_decoded() {
        assert_eq!(header_value(" =?base64?dMOiY2hl?= "), "tâche");
        assert_eq!(header_value("plain "), "plain");
        assert_eq!(header_value("=?base64?***?="), "=?base64?***?=");
        let p = caps(json!({"taskId": "tâche"}));
        let h = Headers {
            mcp_method: Some("tasks/get"),
            mcp_name: Some("=?base64?dMOiY2hl?="),
            protocol_version: None,
        };
        assert_eq!(
            check_request(Model::Task2026, "tasks/get", Some(&p), Some(&h)),
            Ok(())
        );
    }

    /// Rules E-24.

    #[test]
    fn task_support_per_revision() {
        let plain = json!({"name": "x"});
        let capable = caps(json!({"name": "x"}));
        let e = check_task_support(Model::Task2026, "x", TaskSupport::Required, Some(&plain))
            .unwrap_err();
        assert_eq!((e.error.code, e.http_status), (-32021, 400));
        assert_eq!(
            check_task_support(Model::Task2026, "x", TaskSupport::Required, Some(&capable)),
            Ok(true)
        );
        assert_eq!(
            check_task_support(Model::Task2026, "x", TaskSupport::Optional, Some(&plain)),
            Ok(false)
        );
        assert_eq!(
            check_task_support(Model::Task2026, "x", TaskSupport::Forbidden, Some(&capable)),
            Ok(false)
        );
        let with_task = json!({"name": "x", "task": {}});
        assert_eq!(
            check_task_support(Model::Task2025, "x", TaskSupport::Required, Some(&plain))
                .unwrap_err()
                .error
                .code,
            -32601
        );
        assert_eq!(
            check_task_support(
                Model::Task2025,
                "x",
                TaskSupport::Forbidden,
                Some(&with_task)
            )
            .unwrap_err()
            .error
            .code,
            -32601
        );
        assert_eq!(
            check_task_support(
                Model::Task2025,
                "x",
                TaskSupport::Optional,
                Some(&with_task)
            ),
            Ok(true)
        );
    }

    /// Rules E-26.

    #[test]
    fn http_status_table() {
        assert_eq!(http_status(-32601), 404);
        assert_eq!(http_status(-32603), 500);
        for c in [-32700, -32600, -32602, -32020, -32021, 7] {
            assert_eq!(http_status(c), 400);
        }
    }
}
