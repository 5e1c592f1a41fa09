//! The server's request gate (`longcall::server::gate`) for JavaScript servers: the capability
//! gate, the `Mcp-Method` / `Mcp-Name` / `MCP-Protocol-Version` header checks, the methods each
//! revision has, the task-required answer and the HTTP status per error code; and the answers
//! beyond the gate (`longcall::server::answer`, rules E-53 to E-58): reading a body, the params
//! a method needs, unknown methods and tools, the MRTR round, `resultType`, the discovery answers
//! and the answer text. A JavaScript server asks and sends what it is told; it decides none of
//! it.

use longcall::server::answer::{self, Incoming};
use longcall::server::gate::{self, Headers, Rejection, TaskSupport};
use longcall::wire::Id;
use longcall::Error;
use serde::Serialize;
use serde_json::{Map, Value};
use wasm_bindgen::prelude::*;

use crate::args;
use crate::errors::{js, JsResult};
use crate::json::{bounded_string, from_js, to_js};

/// What the gate answers, as JavaScript sees it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Refusal<'a> {
    /// `E-20` ...
    rule: &'static str,
    /// The rule's name (`missing_capability`, `mcp_method_header`, ...).
    kind: gate::GateRule,
    error: &'a longcall::view::RpcError,
    http_status: u16,
}

fn refusal(r: &Rejection) -> JsResult<JsValue> {
    to_js(&Refusal {
        rule: r.rule.id(),
        kind: r.rule,
        error: &r.error,
        http_status: r.http_status,
    })
}

/// A header value from a Node-style headers object (lower-case names; a repeated header is an
/// array, of which the first value counts).
fn header<'a>(headers: &'a Map<String, Value>, name: &str) -> Option<&'a str> {
    let v = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v)?;
    match v {
        Value::String(s) => Some(s),
        Value::Array(a) => a.first().and_then(Value::as_str),
        _ => None,
    }
}

fn opt_value<T: serde::de::DeserializeOwned>(
    value: &JsValue,
    field: &str,
) -> Result<Option<T>, Error> {
    if value.is_null() || value.is_undefined() {
        Ok(None)
    } else {
        from_js(value, field).map(Some)
    }
}

/// `gateRequest(model, method, params, headers)`: `null` when the request passes the gate, else
/// `{rule, kind, error, httpStatus}` (the first rejection: send `error` with `httpStatus`).
/// `headers` is the request's header object (Node's `req.headers`), or `null` on stdio.
#[wasm_bindgen(js_name = gateRequest)]
pub fn gate_request(
    model: JsValue,
    method: JsValue,
    params: JsValue,
    headers: JsValue,
) -> JsResult<JsValue> {
    let model = js(args::model(&model))?;
    let method = js(bounded_string(&method, "method"))?;
    let params: Option<Value> = js(opt_value(&params, "params"))?;
    let headers: Option<Map<String, Value>> = js(opt_value(&headers, "headers"))?;
    let view = headers.as_ref().map(|h| Headers {
        mcp_method: header(h, "mcp-method"),
        mcp_name: header(h, "mcp-name"),
        protocol_version: header(h, "mcp-protocol-version"),
    });
    match gate::check_request(model, &method, params.as_ref(), view.as_ref()) {
        Ok(()) => Ok(JsValue::NULL),
        Err(r) => refusal(&r),
    }
}

/// `gateTaskSupport(model, tool, support, params)`: whether a `tools/call` runs as a task
/// (`{ok: true, value: true}`), synchronously (`{ok: true, value: false}`), or is refused
/// (`{ok: false, error: {rule, kind, error, httpStatus}}`). `support`: `forbidden` (or `never`),
/// `optional`, `required`.
#[wasm_bindgen(js_name = gateTaskSupport)]
pub fn gate_task_support(
    model: JsValue,
    tool: JsValue,
    support: JsValue,
    params: JsValue,
) -> JsResult<JsValue> {
    let model = js(args::model(&model))?;
    let tool = js(bounded_string(&tool, "tool"))?;
    let support = js(bounded_string(&support, "support"))?;
    let support = js(TaskSupport::parse(&support).ok_or_else(|| {
        Error::invalid_input(
            "support",
            "expected \"forbidden\", \"never\", \"optional\" or \"required\"",
        )
    }))?;
    let params: Option<Value> = js(opt_value(&params, "params"))?;
    match gate::check_task_support(model, &tool, support, params.as_ref()) {
        Ok(task) => to_js(&serde_json::json!({"ok": true, "value": task})),
        Err(r) => {
            let inner = refusal(&r)?;
            let out = js_sys::Object::new();
            js_sys::Reflect::set(&out, &"ok".into(), &JsValue::FALSE)?;
            js_sys::Reflect::set(&out, &"error".into(), &inner)?;
            Ok(out.into())
        }
    }
}

/// `httpStatusFor(code)`: the HTTP status a JSON-RPC error code is sent with (rule E-26).
#[wasm_bindgen(js_name = httpStatusFor)]
pub fn http_status_for(code: f64) -> u16 {
    // Not an integer code: the table's default row.
    if code.fract() != 0.0 || !code.is_finite() {
        return gate::http_status(i64::MIN);
    }
    gate::http_status(code as i64)
}

// ---- the answers beyond the gate (rules E-53 to E-58, `longcall::server::answer`) -----------

/// What `readRequest` answers, as JavaScript sees it.
#[derive(Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Read<'a> {
    /// Dispatch it.
    Request {
        id: &'a Id,
        method: &'a str,
        params: &'a Value,
    },
    /// Nothing to answer: HTTP 202.
    NoAnswer,
    /// Send `body` with `httpStatus`.
    Refused {
        #[serde(rename = "httpStatus")]
        http_status: u16,
        body: String,
    },
}

/// `readRequest(body)`: one POST body (a string) as `{kind: "request", id, method, params}`,
/// `{kind: "no_answer"}` (HTTP 202) or `{kind: "refused", httpStatus, body}` (rule E-53: parse
/// error, invalid request, a body over the size limit).
#[wasm_bindgen(js_name = readRequest)]
pub fn read_request(body: JsValue) -> JsResult<JsValue> {
    if let Some(s) = body.dyn_ref::<js_sys::JsString>() {
        if s.length() > crate::json::MAX_JSON_UNITS {
            return read_out(&answer::body_too_large(
                s.length() as usize,
                crate::json::MAX_JSON_UNITS as usize,
            ));
        }
    }
    let text = js(bounded_string(&body, "body"))?;
    // Read as text: the module already holds serde_json's string reader, not its byte reader.
    read_out(&answer::read_request_text(
        &text,
        &longcall::wire::Limits::DEFAULT,
    ))
}

fn read_out(incoming: &Incoming) -> JsResult<JsValue> {
    let out = match incoming {
        Incoming::Request { id, method, params } => Read::Request { id, method, params },
        Incoming::Refused { id, rejection } => {
            let (http_status, body) = rejection.answer_text(id);
            Read::Refused { http_status, body }
        }
        _ => Read::NoAnswer,
    };
    to_js(&out)
}

/// `checkParams(model, method, params)`: `null` when `params` hold what `method` needs, else
/// `{rule, kind, error, httpStatus}` (rule E-54, `-32602`).
#[wasm_bindgen(js_name = checkParams)]
pub fn check_params(model: JsValue, method: JsValue, params: JsValue) -> JsResult<JsValue> {
    let model = js(args::model(&model))?;
    let method = js(bounded_string(&method, "method"))?;
    let params: Value = js(opt_value(&params, "params"))?.unwrap_or(Value::Null);
    match answer::check_params(model, &method, &params) {
        Ok(()) => Ok(JsValue::NULL),
        Err(r) => refusal(&r),
    }
}

/// `methodNotServed(method)`: the `-32601` refusal of a method the server does not serve
/// (rule E-55), as `{rule, kind, error, httpStatus}`.
#[wasm_bindgen(js_name = methodNotServed)]
pub fn method_not_served(method: JsValue) -> JsResult<JsValue> {
    let method = js(bounded_string(&method, "method"))?;
    refusal(&answer::method_not_served(&method))
}

/// `unknownTool(name)`: the `-32602` refusal of a tool the server does not have (rule E-55).
#[wasm_bindgen(js_name = unknownTool)]
pub fn unknown_tool(name: JsValue) -> JsResult<JsValue> {
    let name = js(bounded_string(&name, "name"))?;
    refusal(&answer::unknown_tool(&name))
}

/// `inputResponses(params)`: the answers a `tools/call` continuation carries (key -> response;
/// `{}` when none), rule E-56.
#[wasm_bindgen(js_name = inputResponses)]
pub fn input_responses(params: JsValue) -> JsResult<JsValue> {
    let params: Value = js(opt_value(&params, "params"))?.unwrap_or(Value::Null);
    to_js(&answer::input_responses(&params))
}

/// `inputRequiredResult(inputRequests, requestState?)`: the MRTR `InputRequiredResult` of a
/// `tools/call` (rule E-56); `inputRequests` empty or `null` with a state is a round that asks
/// nothing (E-69). Throws `invalid_input` for neither a request nor a state, or a request
/// without a `method`.
#[wasm_bindgen(js_name = inputRequiredResult)]
pub fn input_required_result(input_requests: JsValue, request_state: JsValue) -> JsResult<JsValue> {
    let asks: Value = js(opt_value(&input_requests, "inputRequests"))?.unwrap_or(Value::Null);
    let state: Option<Value> = js(opt_value(&request_state, "requestState"))?;
    to_js(&js(answer::input_required(&asks, state.as_ref()))?)
}

/// `completeResult(result?)`: `result` with `resultType: "complete"` (rule E-57); `null` or
/// `undefined` is the empty result of `ping` and the acks.
#[wasm_bindgen(js_name = completeResult)]
pub fn complete_result(result: JsValue) -> JsResult<JsValue> {
    let result: Value = js(opt_value(&result, "result"))?.unwrap_or(Value::Null);
    to_js(&js(answer::complete(&result))?)
}

/// `discoverResult(model, serverInfo, capabilities)`: the `server/discover` result (rule E-58).
#[wasm_bindgen(js_name = discoverResult)]
pub fn discover_result(model: JsValue, server_info: JsValue, caps: JsValue) -> JsResult<JsValue> {
    let model = js(args::model(&model))?;
    let info: Value = js(from_js(&server_info, "serverInfo"))?;
    let caps: Value = js(opt_value(&caps, "capabilities"))?.unwrap_or(Value::Null);
    to_js(&answer::discover(model, &info, &caps))
}

/// `initializeResult(model, serverInfo, capabilities)`: the `initialize` result (rule E-58).
#[wasm_bindgen(js_name = initializeResult)]
pub fn initialize_result(model: JsValue, server_info: JsValue, caps: JsValue) -> JsResult<JsValue> {
    let model = js(args::model(&model))?;
    let info: Value = js(from_js(&server_info, "serverInfo"))?;
    let caps: Value = js(opt_value(&caps, "capabilities"))?.unwrap_or(Value::Null);
    to_js(&answer::initialize(model, &info, &caps))
}

/// `toolsListResult(tools)`: the `tools/list` result for an array of tool definitions (E-58).
#[wasm_bindgen(js_name = toolsListResult)]
pub fn tools_list_result(tools: JsValue) -> JsResult<JsValue> {
    let tools: Value = js(from_js(&tools, "tools"))?;
    to_js(&answer::tools_list(&tools))
}

/// `{ok, value}` or `{ok, error}`: the answer of a registry or job book method, passed
/// where the result it carries belongs (it would go out as the result, wrapper and all).
fn is_domain_answer(result: &Value) -> bool {
    let Value::Object(m) = result else {
        return false;
    };
    m.len() == 2
        && m.get("ok").is_some_and(Value::is_boolean)
        && (m.contains_key("value") || m.contains_key("error"))
}

/// `answerText(id, result)` / `answerText(id, null, error)`: the JSON-RPC answer to send, as
/// `{httpStatus, body}` (200 for a result, rule E-26 for an error).
#[wasm_bindgen(js_name = answerText)]
pub fn answer_text(id: JsValue, result: JsValue, error: JsValue) -> JsResult<JsValue> {
    let id: Id = js(opt_value(&id, "id"))?.unwrap_or(Id::Null);
    // An error with a member it does not have (`detail` for `data`) is refused by name, not
    // sent without it.
    let error: Option<longcall::view::RpcError> = if error.is_null() || error.is_undefined() {
        None
    } else {
        Some(js(crate::case::read_js(&error, "error"))?)
    };
    let result: Value = js(opt_value(&result, "result"))?.unwrap_or(Value::Null);
    if is_domain_answer(&result) {
        return js(Err(Error::invalid_input(
            "result",
            "this is a registry or job book answer ({ok, value} or {ok, error}), not a result: \
             send its value rendered for the wire (renderTask2026(got.value, 'complete')), or its \
             error as answerText's third argument",
        )));
    }
    let (http_status, body) = match &error {
        Some(e) => answer::answer_text(&id, Err(e)),
        None => answer::answer_text(&id, Ok(&result)),
    };
    to_js(&serde_json::json!({"httpStatus": http_status, "body": body}))
}
