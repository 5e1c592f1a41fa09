//! MCP wire exports for a host adapter (`longcall/mcp`): JSON-RPC answers in, tracker `Input`s
//! out; tracker `Request`s in, JSON-RPC requests and HTTP headers out. Both MCP revisions.
//!
//! * `readAnswer(model, request, answer)`: the answer (JSON text or a parsed object) to the
//!   request `request` (`"call"`, `"get"`, `"cancel"`, `"update"`, `"fetch_result"`) becomes
//!   `{id, input, violations}`, where `input` goes straight into `Tracker.handle`.
//! * `readResult(model, request, result)`: the same for the `result` member alone, as an SDK
//!   client returns it.
//! * `readNotification(model, message)`: `notifications/tasks` (2026) or
//!   `notifications/tasks/status` (2025) becomes a `task_notified` input.
//! * `buildRequest(model, request, id)`: a tracker `send` request becomes
//!   `{message, headers}`; 2026 requests carry the per-request capability `_meta` and the
//!   `Mcp-Method` / `Mcp-Name: <taskId>` / `MCP-Protocol-Version` headers.
//! * `buildCall(model, id, name, args, ttlMs?)`: the creating `tools/call`.
//! * `requestMeta(clientInfo?)`: the `_meta` object of a 2026 request (capability, version, client).
//! * `httpMessages({status, headers?}, body)`: the JSON-RPC messages the HTTP answer to a POST
//!   carries (a JSON body, or each event of an event stream), for a request of the host's own.
//! * The whole call (bytes in, transmits and events out) is `Endpoint`
//!   (`bindings/wasm/src/endpoint.rs`); hosts should prefer it to the functions above.
//!
//! Everything here only converts JS values; the mapping itself is the core's
//! (`longcall::endpoint::codec`).

use longcall::endpoint::codec::{
    build_call, build_request, read_answer, read_notification, read_result, Asked,
};
use longcall::tracker::Request;
use longcall::wire::mcp2026::{self, ClientInfo};
use longcall::wire::{Id, Message};
use longcall::Error;
use serde_json::Value;
use wasm_bindgen::prelude::*;

use crate::args;
use crate::case::write_js;
use crate::errors::{js, JsResult};
use crate::json::{bounded_string, from_js, to_js};

/// A core value as a camelCase JavaScript value.
fn message_arg(value: &JsValue, field: &str) -> Result<Message, Error> {
    // A message object is read as the text `JSON.stringify` makes of it, as its text would be.
    let text = if value.is_string() {
        bounded_string(value, field)?
    } else {
        crate::json::stringify(value, field)?
    };
    Message::parse(text.as_bytes())
}

fn id_arg(value: &JsValue) -> Result<Id, Error> {
    if let Some(s) = value.as_string() {
        return Ok(Id::String(s));
    }
    match value.as_f64() {
        Some(n) => crate::json::num(n)
            .and_then(|n| i64::try_from(n).ok())
            .map(Id::Number)
            .ok_or_else(|| Error::invalid_input("id", "expected an integer from 0 to 2^53-1")),
        None => Err(Error::invalid_input(
            "id",
            &format!(
                "expected a number or a string, got {}",
                args::describe(value)
            ),
        )),
    }
}

fn string_arg(value: &JsValue, field: &str) -> Result<String, Error> {
    value.as_string().ok_or_else(|| {
        Error::invalid_input(
            field,
            &format!("expected a string, got {}", args::describe(value)),
        )
    })
}

/// `readAnswer(model, request, answer)`: the JSON-RPC answer (text or object) to `request`
/// (`"call" | "get" | "cancel" | "update" | "fetch_result"`) as `{id, input, violations}`;
/// `input` is a tracker input in camelCase, as `Tracker.handleInput` and `WatchList.handle`
/// take it (the server's own JSON in it, a tool result or an input request, as sent). Throws `invalid_input`, `wrong_model`, `malformed`, `too_large`,
/// `too_deep`, `unknown_status`.
#[wasm_bindgen(js_name = readAnswer)]
pub fn read_answer_js(model: JsValue, request: JsValue, answer: JsValue) -> JsResult<JsValue> {
    let r = js((|| {
        let model = args::model(&model)?;
        let asked = Asked::parse(&string_arg(&request, "request")?)?;
        let message = message_arg(&answer, "answer")?;
        read_answer(model, asked, &message)
    })())?;
    write_js(&r)
}

/// `readResult(model, request, result)`: [`read_answer_js`] for the `result` of a successful
/// answer as an SDK client returns it (the JSON-RPC envelope taken off), text or object:
/// `{id: null, input, violations}`.
#[wasm_bindgen(js_name = readResult)]
pub fn read_result_js(model: JsValue, request: JsValue, result: JsValue) -> JsResult<JsValue> {
    let r = js((|| {
        let model = args::model(&model)?;
        let asked = Asked::parse(&string_arg(&request, "request")?)?;
        let result: Value = crate::json::from_text_or_value(&result, "result")?;
        read_result(model, asked, result)
    })())?;
    write_js(&r)
}

/// `readNotification(model, message)`: `{id: null, input: {type: "task_notified", ...},
/// violations}` for a task status notification of `model`, `null` for any other notification.
#[wasm_bindgen(js_name = readNotification)]
pub fn read_notification_js(model: JsValue, message: JsValue) -> JsResult<JsValue> {
    let r = js((|| {
        let model = args::model(&model)?;
        let message = message_arg(&message, "message")?;
        read_notification(model, &message)
    })())?;
    match r {
        Some(r) => write_js(&r),
        None => Ok(JsValue::NULL),
    }
}

/// `buildRequest(model, request, id)`: the tracker's `send` request (camelCase, as the tracker's
/// outputs give it; an unknown key is refused by name) as `{message, headers}`.
#[wasm_bindgen(js_name = buildRequest)]
pub fn build_request_js(model: JsValue, request: JsValue, id: JsValue) -> JsResult<JsValue> {
    let r = js((|| {
        let model = args::model(&model)?;
        let request: Request = crate::json::stringify(&request, "request")
            .and_then(|text| crate::case::read(&text, "request"))?;
        build_request(model, &request, id_arg(&id)?)
    })())?;
    to_js(&r)
}

/// `buildCall(model, id, name, args, ttlMs?)`: the creating `tools/call` as `{message, headers}`
/// (2026: capability `_meta`, `Mcp-Name: <tool>`; 2025: `params.task {ttl?}`).
#[wasm_bindgen(js_name = buildCall)]
pub fn build_call_js(
    model: JsValue,
    id: JsValue,
    name: JsValue,
    arguments: JsValue,
    ttl_ms: JsValue,
) -> JsResult<JsValue> {
    let r = js((|| {
        let model = args::model(&model)?;
        let name = string_arg(&name, "name")?;
        let arguments: Value = if arguments.is_undefined() {
            Value::Null
        } else {
            from_js(&arguments, "arguments")?
        };
        let ttl = crate::json::opt_uint(&ttl_ms, "ttlMs")?;
        build_call(model, id_arg(&id)?, &name, arguments, ttl)
    })())?;
    to_js(&r)
}

/// `requestMeta(clientInfo?)`: the `_meta` of a 2026 request (rules M-5, M-21): the tasks
/// extension in the client capabilities, the protocol version and `clientInfo` `{name,
/// version}` (default longcall's). For a request of the host's own, such as `tools/list`; the
/// core's requests carry it already.
#[wasm_bindgen(js_name = requestMeta)]
pub fn request_meta_js(client_info: JsValue) -> JsResult<JsValue> {
    let client = js((|| {
        if client_info.is_undefined() || client_info.is_null() {
            return Ok(ClientInfo::default());
        }
        from_js::<ClientInfo>(&client_info, "clientInfo")
    })())?;
    to_js(&mcp2026::request_meta(&client))
}

/// `httpMessages({status, headers?}, body)`: the JSON-RPC messages (their texts, in order) that
/// the HTTP answer to a POST carries: a JSON body, or the data of each event of a
/// `text/event-stream` body; none in a 4xx or 5xx page (rule E-67), nor bytes that are not
/// UTF-8. For a request of the host's own, such as `tools/list`: the endpoint reads the answers
/// to its own requests whole (`handleHttpAnswer`).
#[wasm_bindgen(js_name = httpMessages)]
pub fn http_messages(answer: JsValue, body: JsValue) -> JsResult<JsValue> {
    let answer = js(crate::endpoint::HttpArgs::read(&answer, &body))?;
    let mut texts: Vec<String> = Vec::new();
    longcall::wire::sse::each_message(answer.status, &answer.headers, &answer.body, |m| {
        // JSON is UTF-8 (RFC 8259): bytes that are not carry no JSON-RPC message.
        texts.extend(core::str::from_utf8(m).ok().map(String::from));
    });
    to_js(&texts)
}

/// `artifactUrl(result)`: the first artifact's URL in a finished Sume job's result, in either
/// shape a host gets one (`longcall/jobs`' `settled.result`, the Open API's `data` with
/// `result.artifacts`; or a wave's `{artifacts}`); `undefined` when it has none, as when there
/// is no result at all (`undefined` or `null`: a cancelled or failed job's `settled.result`).
#[wasm_bindgen(js_name = artifactUrl)]
pub fn artifact_url(result: JsValue) -> JsResult<Option<String>> {
    if result.is_undefined() || result.is_null() {
        return Ok(None);
    }
    let result: Value = js(from_js(&result, "result"))?;
    Ok(longcall::wire::sume_open::artifact_url(&result).map(String::from))
}
