//! What an MCP tasks server answers besides the gate ([`super::gate`]): how a POST body is read
//! as a request, which params a method needs, what an unknown method or tool is answered, and the
//! shapes of the results the server writes (the MRTR `InputRequiredResult`, a tool's result, the
//! discovery answers). A server's host moves bytes: it reads the body with [`read_request`],
//! runs the gate, asks [`check_params`], runs its tools, and writes what these functions build.
//!
//! Rules, written once:
//!
//! * **E-53 The envelope.** A body that is not JSON is `-32700` with a `null` id; a JSON value
//!   that is not a JSON-RPC 2.0 request (not an object, no `"jsonrpc": "2.0"`, a method that is
//!   not a string, params neither object nor array, an id neither string nor integer) is
//!   `-32600`, echoing the id when it could be read; a body over the size limit is `-32600`
//!   sent with HTTP 413; a notification, or a response the client sends, gets no answer (HTTP
//!   202).
//! * **E-54 Params.** [`PARAMS`]: the members a method needs, checked before any state is looked
//!   at; a missing or mistyped one is `-32602` naming it.
//! * **E-55 Not served.** A method the server does not serve is `-32601` with the method as
//!   `data`; a tool it does not have is `-32602` naming the tool.
//! * **E-56 The MRTR round.** A tool that needs input before it can run answers `tools/call`
//!   with `{resultType: "input_required", inputRequests, requestState?}`: at least one request,
//!   each naming a string `method`; the continuation's `inputResponses` are read by
//!   [`input_responses`].
//! * **E-57 `resultType`.** Every other result of a 2026 server carries `resultType: "complete"`
//!   (a tool's result, `ping`, the acks); a tool cannot choose another.
//! * **E-58 Discovery.** `server/discover` answers the revisions the server speaks, its
//!   capabilities with the tasks extension declared, its `serverInfo` and the cache hints
//!   `ttlMs` and `cacheScope`; `initialize` the same capabilities with `protocolVersion`;
//!   `tools/list` the tools with the same cache hints.
//!
//! ```
//! use longcall::server::answer::{check_params, read_request, Incoming};
//! use longcall::Model;
//! let Incoming::Request { method, params, .. } =
//!     read_request(br#"{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{}}"#)
//! else { panic!() };
//! let no = check_params(Model::Task2026, &method, &params).unwrap_err();
//! assert_eq!((no.rule.id(), no.error.code, no.http_status), ("E-54", -32602, 400));
//! ```

use alloc::format;
use alloc::string::String;
use alloc::vec;

use serde_json::{json, Map, Value};

use super::gate::{GateRule, Rejection};
use crate::error::{Error, Quoted};
use crate::model::Model;
use crate::view::{codes, RpcError};
use crate::wire::{mcp2025, mcp2026, Id, Limits, Message};
use crate::Json;

/// JSON-RPC's parse error (E-53).
pub const PARSE_ERROR: i64 = -32700;

/// What a POST body is (E-53).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Incoming {
    /// A request to dispatch; `params` is `{}` when absent.
    Request {
        /// The id to answer with.
        id: Id,
        /// The method.
        method: String,
        /// The params.
        params: Value,
    },
    /// A notification or the client's response: nothing to answer (HTTP 202).
    NoAnswer,
    /// Not a request: answer `rejection` with `id`.
    Refused {
        /// The id the answer carries (`null` when none could be read).
        id: Id,
        /// The error and its HTTP status.
        rejection: Rejection,
    },
}

/// E-53: reads one POST body under the default [`Limits`].
#[must_use]
pub fn read_request(body: &[u8]) -> Incoming {
    read_request_with(body, &Limits::DEFAULT)
}

/// E-53: reads one POST body under `limits` (a body over them is `-32600`, never parsed).
#[must_use]
pub fn read_request_with(body: &[u8], limits: &Limits) -> Incoming {
    match core::str::from_utf8(body) {
        Ok(text) => read_request_text(text, limits),
        // JSON is UTF-8: anything else is not JSON, unless it is over the limits anyway.
        Err(_) => match crate::wire::limits::check(body, limits) {
            Err(e) => not_read(e),
            Ok(()) => refused(Id::Null, PARSE_ERROR, String::from("Parse error")),
        },
    }
}

/// E-53: [`read_request_with`] for a body already held as text (a JavaScript host's string).
#[must_use]
pub fn read_request_text(body: &str, limits: &Limits) -> Incoming {
    if let Err(e) = crate::wire::limits::check(body.as_bytes(), limits) {
        return not_read(e);
    }
    let value: Value = match serde_json::from_slice(body.as_bytes()) {
        Ok(v) => v,
        Err(_) => return refused(Id::Null, PARSE_ERROR, String::from("Parse error")),
    };
    read_value(value)
}

/// The answer to a body the limits refused before any parsing.
fn not_read(e: Error) -> Incoming {
    match e {
        Error::TooLarge {
            what: "JSON message",
            limit,
            actual,
        } => body_too_large(actual, limit),
        e => refused(
            Id::Null,
            codes::INVALID_REQUEST,
            format!("Invalid Request: {e}"),
        ),
    }
}

fn read_value(value: Value) -> Incoming {
    // The id as far as it can be read, for the answer to a request that is otherwise invalid.
    let id = match value.get("id") {
        Some(Value::String(s)) => Id::String(s.clone()),
        Some(Value::Number(n)) => n.as_i64().map_or(Id::Null, Id::Number),
        _ => Id::Null,
    };
    let is_answer = value.get("method").is_none()
        && (value.get("result").is_some() || value.get("error").is_some());
    match Message::from_value(value) {
        Ok(Message::Request { id, method, params }) => Incoming::Request {
            id,
            method,
            params: params.unwrap_or_else(|| Value::Object(Map::new())),
        },
        Ok(Message::Notification { .. } | Message::Response { .. } | Message::Error { .. }) => {
            Incoming::NoAnswer
        }
        // A client's answer we cannot read is still not ours to answer.
        Err(_) if is_answer => Incoming::NoAnswer,
        Err(e) => refused(id, codes::INVALID_REQUEST, format!("Invalid Request: {e}")),
    }
}

/// E-53: the answer to a body of `actual` bytes over the `limit` (a host that stops reading at
/// the limit says so with what it read): `-32600`, sent with HTTP 413.
#[must_use]
pub fn body_too_large(actual: usize, limit: usize) -> Incoming {
    let mut r = rejection(
        GateRule::Envelope,
        codes::INVALID_REQUEST,
        format!("body too large ({actual} bytes, limit {limit})"),
        None,
    );
    r.http_status = 413;
    Incoming::Refused {
        id: Id::Null,
        rejection: r,
    }
}

fn refused(id: Id, code: i64, message: String) -> Incoming {
    Incoming::Refused {
        id,
        rejection: rejection(GateRule::Envelope, code, message, None),
    }
}

fn rejection(rule: GateRule, code: i64, message: String, data: Option<Value>) -> Rejection {
    Rejection {
        rule,
        http_status: super::gate::http_status(code),
        error: RpcError {
            code,
            message,
            data: data.map(Json::from),
        },
    }
}

/// The type a param must have (E-54).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Need {
    /// A string that is not empty.
    NonEmptyString,
    /// A string.
    String,
    /// An object.
    Object,
    /// An object when present.
    OptionalObject,
}

/// E-54: the params each method needs (revision, method, member, type). Methods not listed need
/// nothing.
#[rustfmt::skip]
pub const PARAMS: &[(Model, &str, &str, Need)] = &[
    (Model::Task2026, "tasks/get",    "taskId",         Need::NonEmptyString),
    (Model::Task2026, "tasks/update", "taskId",         Need::NonEmptyString),
    (Model::Task2026, "tasks/update", "inputResponses", Need::Object),
    (Model::Task2026, "tasks/cancel", "taskId",         Need::NonEmptyString),
    (Model::Task2026, "tools/call",   "name",           Need::String),
    (Model::Task2026, "tools/call",   "arguments",      Need::OptionalObject),
    (Model::Task2026, "tools/call",   "inputResponses", Need::OptionalObject),
    (Model::Task2025, "tasks/get",    "taskId",         Need::NonEmptyString),
    (Model::Task2025, "tasks/result", "taskId",         Need::NonEmptyString),
    (Model::Task2025, "tasks/cancel", "taskId",         Need::NonEmptyString),
    (Model::Task2025, "tools/call",   "name",           Need::String),
    (Model::Task2025, "tools/call",   "arguments",      Need::OptionalObject),
];

/// E-54: the first param `method` needs and `params` lacks, as the `-32602` to answer.
pub fn check_params(model: Model, method: &str, params: &Value) -> Result<(), Rejection> {
    for &(_, _, member, need) in PARAMS
        .iter()
        .filter(|(m, name, _, _)| *m == model && *name == method)
    {
        let v = params.get(member);
        let (ok, wanted) = match need {
            Need::NonEmptyString => (
                v.and_then(Value::as_str).is_some_and(|s| !s.is_empty()),
                "a non-empty string",
            ),
            Need::String => (v.is_some_and(Value::is_string), "a string"),
            Need::Object => (v.is_some_and(Value::is_object), "an object"),
            Need::OptionalObject => (
                v.is_none_or(|v| v.is_object() || v.is_null()),
                "an object when present",
            ),
        };
        if !ok {
            return Err(rejection(
                GateRule::Params,
                codes::INVALID_PARAMS,
                format!("params.{member} must be {wanted}"),
                None,
            ));
        }
    }
    Ok(())
}

/// E-55: the answer to a method the server does not serve.
#[must_use]
pub fn method_not_served(method: &str) -> Rejection {
    rejection(
        GateRule::NotServed,
        codes::METHOD_NOT_FOUND,
        format!("Method not found: {method}"),
        Some(Value::String(String::from(method))),
    )
}

/// E-55: the answer to a `tools/call` of a tool the server does not have.
#[must_use]
pub fn unknown_tool(name: &str) -> Rejection {
    rejection(
        GateRule::NotServed,
        codes::INVALID_PARAMS,
        format!("Unknown tool: {name}"),
        None,
    )
}

/// E-56: the `inputResponses` of a `tools/call` (an MRTR continuation), or an empty map.
/// Call [`check_params`] first; a value of another type reads as none.
#[must_use]
pub fn input_responses(params: &Value) -> Map<String, Value> {
    match params.get("inputResponses") {
        Some(Value::Object(m)) => m.clone(),
        _ => Map::new(),
    }
}

/// E-56: the `InputRequiredResult` a `tools/call` answers when the tool needs `input_requests`
/// (key -> request) before it can run; `request_state` is echoed by the client unchanged. A
/// tool still waiting on something of its own asks nothing: `input_requests` empty (or `null`)
/// and the state alone (E-69), which the client sends back on its poll schedule.
///
/// Errors ([`Error::InvalidInput`]): neither a request nor a state, `input_requests` not an
/// object, or a request without a string `method`: the server's own tool is wrong, and the
/// client could not answer it.
///
/// ```
/// use longcall::server::answer::input_required;
/// use serde_json::json;
/// let r = input_required(&json!({"k": {"method": "elicitation/create"}}), None).unwrap();
/// assert_eq!(r["resultType"], "input_required");
/// let waiting = input_required(&json!({}), Some(&json!("s1"))).unwrap();
/// assert_eq!(waiting, json!({"resultType": "input_required", "requestState": "s1"}));
/// assert!(input_required(&json!({}), None).is_err());
/// ```
pub fn input_required(
    input_requests: &Value,
    request_state: Option<&Value>,
) -> Result<Value, Error> {
    let request_state = request_state.filter(|s| !s.is_null());
    let empty = Map::new();
    let map = match input_requests {
        Value::Null => &empty,
        Value::Object(map) => map,
        _ => {
            return Err(Error::invalid_input(
                "inputRequests",
                "inputRequests is an object of key -> request",
            ))
        }
    };
    if map.is_empty() && request_state.is_none() {
        return Err(Error::invalid_input(
            "inputRequests",
            "an MRTR round asks at least one input or keeps a requestState (E-69)",
        ));
    }
    if let Some((key, _)) = map
        .iter()
        .find(|(_, r)| r.get("method").and_then(Value::as_str).is_none())
    {
        return Err(Error::invalid_input(
            "inputRequests",
            &format!("inputRequests[{}] has no string method", Quoted(key)),
        ));
    }
    let mut out = Map::new();
    out.insert("resultType".into(), Value::from("input_required"));
    if !map.is_empty() {
        out.insert("inputRequests".into(), Value::Object(map.clone()));
    }
    if let Some(s) = request_state {
        out.insert("requestState".into(), s.clone());
    }
    Ok(Value::Object(out))
}

/// E-57: a result as a 2026 server sends it: the object with `resultType: "complete"` (set over
/// whatever the tool wrote). `null` is the empty result (`ping`, the acks).
///
/// Errors ([`Error::InvalidInput`]): a result that is neither an object nor `null`.
pub fn complete(result: &Value) -> Result<Value, Error> {
    let mut out = match result {
        Value::Object(m) => m.clone(),
        Value::Null => Map::new(),
        _ => {
            return Err(Error::invalid_input(
                "result",
                "a result is an object (CallToolResult, an ack)",
            ))
        }
    };
    out.insert("resultType".into(), Value::from("complete"));
    Ok(Value::Object(out))
}

/// The cache hints of the discovery answers (E-58): private, not to be cached.
fn cache_hints(out: &mut Map<String, Value>) {
    out.insert("ttlMs".into(), Value::from(0));
    out.insert("cacheScope".into(), Value::from("private"));
    out.insert("resultType".into(), Value::from("complete"));
}

/// E-58: the server's capabilities with the tasks extension declared (on 2026), over the ones
/// the host lists (`null` for none).
fn capabilities(model: Model, extra: &Value) -> Value {
    let mut caps = extra.as_object().cloned().unwrap_or_default();
    if model == Model::Task2026 {
        let ext = caps
            .entry("extensions")
            .or_insert_with(|| Value::Object(Map::new()));
        if !ext.is_object() {
            *ext = Value::Object(Map::new());
        }
        if let Some(e) = ext.as_object_mut() {
            e.entry(mcp2026::EXTENSION).or_insert_with(|| json!({}));
        }
    } else {
        caps.entry("tasks").or_insert_with(|| json!({}));
    }
    Value::Object(caps)
}

fn version(model: Model) -> &'static str {
    if model == Model::Task2026 {
        mcp2026::PROTOCOL_VERSION
    } else {
        mcp2025::PROTOCOL_VERSION
    }
}

/// E-58: the `server/discover` result for a server of `model` with `server_info`
/// (`{name, version}`) and the host's own capabilities (`tools`, ...).
///
/// ```
/// use longcall::server::answer::discover;
/// use longcall::Model;
/// use serde_json::json;
/// let d = discover(Model::Task2026, &json!({"name": "s", "version": "1"}), &json!({"tools": {}}));
/// assert_eq!(d["supportedVersions"], json!(["2026-07-28"]));
/// assert!(d["capabilities"]["extensions"]["io.modelcontextprotocol/tasks"].is_object());
/// ```
#[must_use]
pub fn discover(model: Model, server_info: &Value, capabilities_: &Value) -> Value {
    let mut out = Map::new();
    out.insert(
        "supportedVersions".into(),
        Value::Array(vec![Value::from(version(model))]),
    );
    out.insert("capabilities".into(), capabilities(model, capabilities_));
    out.insert("serverInfo".into(), server_info.clone());
    cache_hints(&mut out);
    Value::Object(out)
}

/// E-58: the `initialize` result (the same capabilities, with `protocolVersion`).
#[must_use]
pub fn initialize(model: Model, server_info: &Value, capabilities_: &Value) -> Value {
    let mut out = Map::new();
    out.insert("protocolVersion".into(), Value::from(version(model)));
    out.insert("capabilities".into(), capabilities(model, capabilities_));
    out.insert("serverInfo".into(), server_info.clone());
    out.insert("resultType".into(), Value::from("complete"));
    Value::Object(out)
}

/// E-58: the `tools/list` result for `tools` (an array of tool definitions).
#[must_use]
pub fn tools_list(tools: &Value) -> Value {
    let mut out = Map::new();
    out.insert(
        "tools".into(),
        if tools.is_array() {
            tools.clone()
        } else {
            Value::Array(vec![])
        },
    );
    cache_hints(&mut out);
    Value::Object(out)
}

/// The JSON-RPC answer text to send with its HTTP status: `Ok(result)` with 200, `Err(error)`
/// with the status of E-26.
#[must_use]
pub fn answer_text(id: &Id, answer: Result<&Value, &RpcError>) -> (u16, String) {
    let (status, message) = match answer {
        Ok(result) => (
            200,
            Message::Response {
                id: id.clone(),
                result: result.clone(),
            },
        ),
        Err(error) => (
            super::gate::http_status(error.code),
            Message::Error {
                id: id.clone(),
                error: error.clone(),
            },
        ),
    };
    (status, crate::json_text(&message.to_value()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;

    fn refused(body: &str) -> (Id, i64, &'static str, u16) {
        match read_request(body.as_bytes()) {
            Incoming::Refused { id, rejection } => (
                id,
                rejection.error.code,
                rejection.rule.id(),
                rejection.http_status,
            ),
            other => panic!("{body}: {other:?}"),
        }
    }

    /// E-53.
    #[test]
    fn e53_the_envelope() {
        assert_eq!(refused("{nope"), (Id::Null, -32700, "E-53", 400));
        assert_eq!(refused(""), (Id::Null, -32700, "E-53", 400));
        assert_eq!(
            refused(r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#),
            (Id::Null, -32600, "E-53", 400),
            "an id that is not an integer"
        );
        assert_eq!(refused("\"\u{e9}\"").1, -32600, "a string is not a request");
        assert_eq!(
            match read_request(b"\"\xff\"") {
                Incoming::Refused { rejection, .. } => rejection.error.code,
                _ => 0,
            },
            -32700,
            "not UTF-8 is not JSON"
        );
        assert_eq!(refused("[1]").1, -32600);
        assert_eq!(
            refused(r#"{"jsonrpc":"1.0","id":7,"method":"ping"}"#),
            (Id::Number(7), -32600, "E-53", 400)
        );
        assert_eq!(
            refused(r#"{"jsonrpc":"2.0","id":"a","method":3}"#).0,
            Id::String("a".to_string())
        );
        assert_eq!(
            refused(r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":3}"#).1,
            -32600
        );
        assert_eq!(
            refused(&"[".repeat(100)).1,
            -32600,
            "too deep is not a parse error"
        );
        let tight = Limits {
            max_bytes: 8,
            ..Limits::DEFAULT
        };
        let Incoming::Refused { id, rejection } =
            read_request_with(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#, &tight)
        else {
            panic!()
        };
        assert_eq!(
            (id, rejection.error.code, rejection.http_status),
            (Id::Null, -32600, 413)
        );
        for silent in [
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m"}}"#,
            r#"{"id":1,"result":{}}"#,
        ] {
            assert_eq!(
                read_request(silent.as_bytes()),
                Incoming::NoAnswer,
                "{silent}"
            );
        }
        assert_eq!(
            read_request(br#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#),
            Incoming::Request {
                id: Id::Number(2),
                method: "ping".into(),
                params: json!({})
            }
        );
    }

    /// E-54.
    #[test]
    fn e54_params_each_method_needs() {
        let m = Model::Task2026;
        let code = |method: &str, p: Value| check_params(m, method, &p).map_err(|r| r.error);
        assert!(code("tasks/get", json!({"taskId": "t"})).is_ok());
        for bad in [json!({}), json!({"taskId": ""}), json!({"taskId": 3})] {
            let e = code("tasks/get", bad).unwrap_err();
            assert_eq!(
                (e.code, e.message.as_str()),
                (-32602, "params.taskId must be a non-empty string")
            );
        }
        assert_eq!(
            code("tasks/update", json!({"taskId": "t", "inputResponses": []}))
                .unwrap_err()
                .message,
            "params.inputResponses must be an object"
        );
        assert!(code("tasks/update", json!({"taskId": "t", "inputResponses": {}})).is_ok());
        assert!(code("tools/call", json!({"name": "x"})).is_ok());
        assert!(code("tools/call", json!({"name": "x", "arguments": null})).is_ok());
        assert!(code("tools/call", json!({"arguments": {}})).is_err());
        assert!(code("tools/call", json!({"name": "x", "arguments": 1})).is_err());
        assert!(code("tools/call", json!({"name": "x", "inputResponses": "s"})).is_err());
        assert!(code("ping", json!({})).is_ok());
        assert!(check_params(Model::Task2025, "tasks/result", &json!({})).is_err());
        assert_eq!(
            check_params(m, "tasks/cancel", &json!({}))
                .unwrap_err()
                .rule,
            GateRule::Params
        );
    }

    /// E-55.
    #[test]
    fn e55_not_served() {
        let r = method_not_served("foo/bar");
        assert_eq!(
            (r.rule.id(), r.error.code, r.http_status, r.error.data),
            ("E-55", -32601, 404, Some(json!("foo/bar").into()))
        );
        let t = unknown_tool("nope");
        assert_eq!(
            (t.error.code, t.error.message.as_str()),
            (-32602, "Unknown tool: nope")
        );
    }

    /// E-56.
    #[test]
    fn e56_the_mrtr_round() {
        let asks = json!({"k": {"method": "elicitation/create", "params": {}}});
        let r = input_required(&asks, Some(&json!("s1"))).unwrap();
        assert_eq!(
            r,
            json!({"resultType": "input_required", "inputRequests": asks, "requestState": "s1"})
        );
        // The client's reading of it is an MRTR round (E-8), never a result.
        let p = mcp2026::read_tools_call(&r).unwrap();
        assert!(p.violations.is_empty());
        assert!(matches!(p.value, mcp2026::CallAnswer::InputRequired { .. }));
        assert!(input_required(&asks, Some(&Value::Null))
            .unwrap()
            .get("requestState")
            .is_none());
        assert_eq!(
            input_required(&json!({}), None).unwrap_err().code(),
            "invalid_input"
        );
        assert!(input_required(&json!({"k": {"params": {}}}), None).is_err());
        assert!(input_required(&json!([]), None).is_err());
        assert!(input_required(&Value::Null, Some(&Value::Null)).is_err());
    }

    /// E-69: a round that asks nothing keeps the state alone, and the client's reader takes it
    /// as such: no input to ask, the state to echo.
    #[test]
    fn e69_the_still_waiting_round() {
        for nothing in [json!({}), Value::Null] {
            let r = input_required(&nothing, Some(&json!("s2"))).unwrap();
            assert_eq!(
                r,
                json!({"resultType": "input_required", "requestState": "s2"})
            );
            let p = mcp2026::read_tools_call(&r).unwrap();
            assert!(p.violations.is_empty());
            let mcp2026::CallAnswer::InputRequired {
                input_requests,
                request_state,
            } = p.value
            else {
                panic!("not a round: {:?}", p.value);
            };
            assert!(input_requests.is_empty());
            assert_eq!(request_state, Some(json!("s2")));
        }
        // Its continuation carries the state and no answers.
        let m = mcp2026::continue_call_request(
            crate::wire::Id::Number(2),
            "render",
            json!({}),
            Map::new(),
            Some(json!("s2")),
        )
        .to_value();
        assert_eq!(m["params"]["requestState"], "s2");
        assert!(m["params"].get("inputResponses").is_none());
        assert_eq!(
            input_responses(&json!({"inputResponses": {"k": {"action": "accept"}}}))["k"]["action"],
            "accept"
        );
        assert!(input_responses(&json!({})).is_empty());
    }

    /// E-57.
    #[test]
    fn e57_result_type_complete() {
        let r = complete(&json!({"content": [], "resultType": "task"})).unwrap();
        assert_eq!(r, json!({"content": [], "resultType": "complete"}));
        assert_eq!(
            complete(&Value::Null).unwrap(),
            json!({"resultType": "complete"})
        );
        assert!(complete(&json!(3)).is_err());
        let p = mcp2026::read_tools_call(&r).unwrap();
        assert!(matches!(p.value, mcp2026::CallAnswer::Result(_)));
    }

    /// E-58.
    #[test]
    fn e58_discovery() {
        let info = json!({"name": "s", "version": "1"});
        let d = discover(
            Model::Task2026,
            &info,
            &json!({"tools": {"listChanged": false}}),
        );
        assert_eq!(
            d,
            json!({
                "supportedVersions": ["2026-07-28"],
                "capabilities": {"tools": {"listChanged": false},
                    "extensions": {"io.modelcontextprotocol/tasks": {}}},
                "serverInfo": info, "ttlMs": 0, "cacheScope": "private", "resultType": "complete"
            })
        );
        let i = initialize(Model::Task2026, &info, &Value::Null);
        assert_eq!(i["protocolVersion"], "2026-07-28");
        assert_eq!(
            i["capabilities"],
            json!({"extensions": {"io.modelcontextprotocol/tasks": {}}})
        );
        let l = tools_list(&json!([{"name": "t"}]));
        assert_eq!(
            (l["tools"][0]["name"].as_str(), l["cacheScope"].as_str()),
            (Some("t"), Some("private"))
        );
    }

    /// E-26 on the answers of E-53 to E-58.
    #[test]
    fn answers_carry_the_status_of_e26() {
        let (s, text) = answer_text(&Id::Number(1), Ok(&json!({"resultType": "complete"})));
        assert_eq!(
            (s, text.as_str()),
            (
                200,
                r#"{"id":1,"jsonrpc":"2.0","result":{"resultType":"complete"}}"#
            )
        );
        let e = method_not_served("x").error;
        let (s, text) = answer_text(&Id::Null, Err(&e));
        assert_eq!(s, 404);
        assert!(text.contains(r#""id":null"#));
    }
}
