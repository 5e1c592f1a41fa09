//! MCP wire exports for a host adapter (`longcall/mcp`): JSON-RPC answers in, tracker `Input`s
//! out; tracker `Request`s in, JSON-RPC requests and HTTP headers out. Both MCP revisions.
//!
//! * `readAnswer(model, request, answer)`: the answer (JSON text or a parsed object) to the
//!   request `request` (`"call"`, `"get"`, `"cancel"`, `"update"`, `"fetch_result"`) becomes
//!   `{id, input, violations}`, where `input` goes straight into `Tracker.handle`.
//! * `readNotification(model, message)`: `notifications/tasks` (2026) or
//!   `notifications/tasks/status` (2025) becomes a `task_notified` input.
//! * `buildRequest(model, request, id)`: a tracker `send` request becomes
//!   `{message, headers}`; 2026 requests carry the per-request capability `_meta` and the
//!   `Mcp-Method` / `Mcp-Name: <taskId>` / `MCP-Protocol-Version` headers.
//! * `buildCall(model, id, name, args, ttlMs?)`: the creating `tools/call`.
//! * `capabilityMeta()`: the `_meta` object that declares the tasks extension.
//! * `CallEndpoint`: the whole call (bytes in, transmits and events out), the core's
//!   `longcall::endpoint::CallEndpoint`; hosts should prefer it to the functions above.
//!
//! Everything here only converts JS values; the mapping itself is the core's
//! (`longcall::endpoint::codec`).

use longcall::endpoint::codec::{build_call, build_request, read_answer, read_notification, Asked};
use longcall::endpoint::{CallEndpoint, Config, Event, HttpAnswer};
use longcall::tracker::Request;
use longcall::wire::{mcp2026, Id, Message};
use longcall::Error;
use serde_json::Value;
use wasm_bindgen::prelude::*;

use crate::args;
use crate::errors::{js, JsResult};
use crate::json::{bounded_string, from_js, to_js};

fn message_arg(value: &JsValue, field: &str) -> Result<Message, Error> {
    let text = if value.is_string() {
        bounded_string(value, field)?
    } else {
        let v: Value = from_js(value, field)?;
        v.to_string()
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
/// `input` is a tracker input. Throws `invalid_input`, `wrong_model`, `malformed`, `too_large`,
/// `too_deep`, `unknown_status`.
#[wasm_bindgen(js_name = readAnswer)]
pub fn read_answer_js(model: JsValue, request: JsValue, answer: JsValue) -> JsResult<JsValue> {
    let r = js((|| {
        let model = args::model(&model)?;
        let asked = Asked::parse(&string_arg(&request, "request")?)?;
        let message = message_arg(&answer, "answer")?;
        read_answer(model, asked, &message)
    })())?;
    to_js(&r)
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
        Some(r) => to_js(&r),
        None => Ok(JsValue::NULL),
    }
}

/// `buildRequest(model, request, id)`: the tracker's `send` request as `{message, headers}`.
#[wasm_bindgen(js_name = buildRequest)]
pub fn build_request_js(model: JsValue, request: JsValue, id: JsValue) -> JsResult<JsValue> {
    let r = js((|| {
        let model = args::model(&model)?;
        let request: Request = from_js(&request, "request")?;
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

/// `capabilityMeta()`: `{"io.modelcontextprotocol/clientCapabilities": {extensions:
/// {"io.modelcontextprotocol/tasks": {}}}}`, the per-request opt-in of the 2026 extension.
#[wasm_bindgen(js_name = capabilityMeta)]
pub fn capability_meta_js() -> JsResult<JsValue> {
    to_js(&mcp2026::capability_meta())
}

/// `new CallEndpoint(...)` is not offered: start one with `CallEndpoint.callTool`,
/// `CallEndpoint.watch` or `CallEndpoint.restore`. Every input method returns the events it
/// produced, drained up to and including the final `wake_at` or `idle` (the core's
/// `longcall::endpoint::CallEndpoint`; this class only converts JS values).
#[wasm_bindgen(js_name = CallEndpoint)]
pub struct CallEndpointJs {
    inner: CallEndpoint,
}

fn endpoint_config(value: &JsValue) -> Result<Config, Error> {
    if value.is_undefined() || value.is_null() {
        Ok(Config::default())
    } else {
        from_js(value, "config")
    }
}

fn bytes_arg(value: &JsValue, field: &str) -> Result<Vec<u8>, Error> {
    if let Some(a) = value.dyn_ref::<js_sys::Uint8Array>() {
        return Ok(a.to_vec());
    }
    if value.is_string() {
        return Ok(bounded_string(value, field)?.into_bytes());
    }
    Err(Error::invalid_input(
        field,
        &format!(
            "expected a string or a Uint8Array, got {}",
            args::describe(value)
        ),
    ))
}

#[wasm_bindgen(js_class = CallEndpoint)]
impl CallEndpointJs {
    /// `CallEndpoint.callTool(model, name, args?, ttlMs?, config?)`: the first event is the
    /// `tools/call` to send.
    #[wasm_bindgen(js_name = callTool)]
    pub fn call_tool(
        model: JsValue,
        name: JsValue,
        arguments: JsValue,
        ttl_ms: JsValue,
        config: JsValue,
    ) -> JsResult<CallEndpointJs> {
        let inner = js((|| {
            let model = args::model(&model)?;
            let name = string_arg(&name, "name")?;
            let arguments: Value = if arguments.is_undefined() || arguments.is_null() {
                Value::Null
            } else {
                from_js(&arguments, "arguments")?
            };
            let ttl = crate::json::opt_uint(&ttl_ms, "ttlMs")?;
            CallEndpoint::call_tool(model, &name, arguments, ttl, endpoint_config(&config)?)
        })())?;
        Ok(CallEndpointJs { inner })
    }

    /// `CallEndpoint.watch(model, handle, config?)`: watch a persisted task or job id; the first
    /// event is its poll.
    pub fn watch(model: JsValue, handle: JsValue, config: JsValue) -> JsResult<CallEndpointJs> {
        let inner = js((|| {
            let model = args::model(&model)?;
            let handle = string_arg(&handle, "handle")?;
            CallEndpoint::watch(model, &handle, endpoint_config(&config)?)
        })())?;
        Ok(CallEndpointJs { inner })
    }

    /// `CallEndpoint.restore(snapshot, now)`: requests in flight at snapshot time are handled by
    /// the core's resume rule (polls re-armed, a cancel re-sent, never a tools/call).
    pub fn restore(text: JsValue, now: JsValue) -> JsResult<CallEndpointJs> {
        let inner = js((|| {
            let text = bounded_string(&text, "snapshot")?;
            CallEndpoint::restore(&text, crate::json::uint(&now, "now")?)
        })())?;
        Ok(CallEndpointJs { inner })
    }

    /// `snapshot()`: the versioned snapshot text of the whole endpoint.
    pub fn snapshot(&self) -> JsResult<String> {
        js(self.inner.snapshot())
    }

    /// `events()`: drains the pending events (ending with `wake_at` or `idle`).
    pub fn events(&mut self) -> JsResult<JsValue> {
        let mut out = Vec::new();
        loop {
            let e = self.inner.poll_event();
            let last = matches!(e, Event::WakeAt { .. } | Event::Idle);
            out.push(e);
            if last {
                return to_js(&out);
            }
        }
    }

    /// `handleMessage(now, bytes)`: a JSON-RPC message as it arrived (string or Uint8Array).
    #[wasm_bindgen(js_name = handleMessage)]
    pub fn handle_message(&mut self, now: JsValue, message: JsValue) -> JsResult<JsValue> {
        let now = js(crate::json::uint(&now, "now"))?;
        let bytes = js(bytes_arg(&message, "message"))?;
        self.inner.handle_message(now, &bytes);
        self.events()
    }

    /// `handleHttp(now, requestRef, status, retryAfterMs, body)`: a job API's HTTP answer.
    #[wasm_bindgen(js_name = handleHttp)]
    pub fn handle_http(
        &mut self,
        now: JsValue,
        request_ref: JsValue,
        status: JsValue,
        retry_after_ms: JsValue,
        body: JsValue,
    ) -> JsResult<JsValue> {
        let (now, r, status, retry, body) = js((|| {
            let status = crate::json::uint(&status, "status")?;
            let status = u16::try_from(status)
                .map_err(|_| Error::invalid_input("status", "expected an HTTP status"))?;
            Ok((
                crate::json::uint(&now, "now")?,
                crate::json::uint(&request_ref, "requestRef")?,
                status,
                crate::json::opt_uint(&retry_after_ms, "retryAfterMs")?,
                bytes_arg(&body, "body")?,
            ))
        })())?;
        let answer = HttpAnswer {
            status,
            retry_after_ms: retry,
            body: &body,
        };
        self.inner.handle_http(now, r, answer);
        self.events()
    }

    /// `handleTransportFailure(now, requestRef)`: the request got no answer.
    #[wasm_bindgen(js_name = handleTransportFailure)]
    pub fn handle_transport_failure(
        &mut self,
        now: JsValue,
        request_ref: JsValue,
    ) -> JsResult<JsValue> {
        let now = js(crate::json::uint(&now, "now"))?;
        let r = js(crate::json::uint(&request_ref, "requestRef"))?;
        self.inner.handle_transport_failure(now, r);
        self.events()
    }

    /// `timeout(now)`: time passed (call at the last `wake_at`).
    pub fn timeout(&mut self, now: JsValue) -> JsResult<JsValue> {
        let now = js(crate::json::uint(&now, "now"))?;
        self.inner.handle_timeout(now);
        self.events()
    }

    /// `cancel(now)`: the user pressed cancel; throws `cancel_refused` when it cannot be sent.
    pub fn cancel(&mut self, now: JsValue) -> JsResult<JsValue> {
        let now = js(crate::json::uint(&now, "now"))?;
        js(self.inner.cancel_pressed(now))?;
        self.events()
    }

    /// `answerInput(now, key, response)`: the user answered an input (task or MRTR).
    #[wasm_bindgen(js_name = answerInput)]
    pub fn answer_input(
        &mut self,
        now: JsValue,
        key: JsValue,
        response: JsValue,
    ) -> JsResult<JsValue> {
        js((|| {
            let now = crate::json::uint(&now, "now")?;
            let key = string_arg(&key, "key")?;
            let response: Value = from_js(&response, "response")?;
            self.inner.answer_input(now, &key, response)
        })())?;
        self.events()
    }

    /// `stopWatching(now)`: the host stops watching; the call goes on.
    #[wasm_bindgen(js_name = stopWatching)]
    pub fn stop_watching(&mut self, now: JsValue) -> JsResult<JsValue> {
        let now = js(crate::json::uint(&now, "now"))?;
        self.inner.stop_watching(now);
        self.events()
    }

    /// `record()`: the run record (status, button, outcome, payload, violations).
    pub fn record(&self) -> JsResult<JsValue> {
        to_js(&self.inner.tracker().record())
    }
}
