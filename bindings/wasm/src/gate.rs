//! The server's request gate (`longcall::server::gate`) for JavaScript servers: the capability
//! gate, the `Mcp-Method` / `Mcp-Name` / `MCP-Protocol-Version` header checks, the methods each
//! revision has, the task-required answer and the HTTP status per error code. A JavaScript
//! server asks and sends what it is told; it decides none of it.

use longcall::server::gate::{self, Headers, Rejection, TaskSupport};
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
