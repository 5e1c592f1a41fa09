//! The core's endpoint as a JavaScript class (`Endpoint`): one call, bytes in, events out.
//!
//! ```js
//! const ep = Endpoint.callTool('task-2026', 'render', { month: '2026-10' }, null, config);
//! let events = ep.pollEvents();            // [{type: 'transmit', kind: 'rpc', id, text, headers}, ..., {type: 'idle'}]
//! // POST `text` with `headers`; hand the answer to request `id` back exactly as it arrived:
//! events = ep.handleAnswer(Date.now(), id, answerText);
//! ```
//!
//! Every `handle*` method and user input returns the batch of events it caused, drained up to and
//! including the closing `wake_at` (call `handleTimeout(at)` then, or earlier on input) or `idle`;
//! `pollEvents()` drains the same queue on its own. Data crosses in camelCase (`requestRef`,
//! `maxBytes`); what the server sent (a tool result, a JSON-RPC error, an elicitation request) is
//! carried untouched, and `headers` is an object ready for `fetch`. Errors are `Error`s with a
//! stable `code`. Everything here converts values; the mapping and every rule are the core's
//! (`longcall::endpoint`, rules E-1 to E-11: `submitJob` with an intent key, both job dialects).

use longcall::endpoint::{
    CallEndpoint, Config, Event, HttpAnswer, JobDialect, JobRoutes, JobSubmit,
};
use longcall::wire::mcp2026::ClientInfo;
use longcall::wire::sume_open::Kind;
use longcall::wire::Limits;
use longcall::Error;
use serde::Deserialize;
use serde_json::{Map, Value};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::args;
use crate::errors::{js, JsResult};
use crate::json::{self, bounded_string, from_js};

/// The endpoint's own options beside the tracker configuration (rules E-3, E-4, E-7), as
/// JavaScript spells them. A key not listed is `malformed`, naming it.
#[derive(Debug, Default)]
struct WireOptions {
    max_bytes: Option<usize>,
    max_depth: Option<usize>,
    max_string_bytes: Option<usize>,
    detect_revision: Option<bool>,
    job_routes: Option<Routes>,
    job_dialect: Option<JobDialect>,
    client_info: Option<ClientInfo>,
}

// Read member by member ([`crate::json::members`]): every member optional, unknown ones
// refused, serde's messages.
impl<'de> Deserialize<'de> for WireOptions {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        const FIELDS: &[&str] = &[
            "maxBytes",
            "maxDepth",
            "maxStringBytes",
            "detectRevision",
            "jobRoutes",
            "jobDialect",
            "clientInfo",
        ];
        let mut w = WireOptions::default();
        crate::json::members(d, "struct WireOptions", FIELDS, &mut |i, v| {
            match i {
                0 => w.max_bytes = Deserialize::deserialize(v)?,
                1 => w.max_depth = Deserialize::deserialize(v)?,
                2 => w.max_string_bytes = Deserialize::deserialize(v)?,
                3 => w.detect_revision = Deserialize::deserialize(v)?,
                4 => w.job_routes = Deserialize::deserialize(v)?,
                5 => w.job_dialect = Deserialize::deserialize(v)?,
                _ => w.client_info = Deserialize::deserialize(v)?,
            }
            Ok(())
        })?;
        Ok(w)
    }
}

#[derive(Debug, Default)]
struct Routes {
    get: Option<(String, String)>,
    cancel: Option<(String, String)>,
}

impl<'de> Deserialize<'de> for Routes {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut r = Routes::default();
        crate::json::members(d, "struct Routes", &["get", "cancel"], &mut |i, v| {
            match i {
                0 => r.get = Deserialize::deserialize(v)?,
                _ => r.cancel = Deserialize::deserialize(v)?,
            }
            Ok(())
        })?;
        Ok(r)
    }
}

/// The fields of a JavaScript object argument, each taken by name; a key not in `known` is
/// `malformed`, naming it. Read by hand rather than by a derived reader: it keeps the module small.
fn fields(value: &JsValue, field: &str, known: &[&str]) -> Result<Map<String, Value>, Error> {
    let Value::Object(map) = from_js::<Value>(value, field)? else {
        return Err(Error::invalid_input(field, "expected an object"));
    };
    if let Some(k) = map.keys().find(|k| !known.contains(&k.as_str())) {
        let spelt = crate::errors::camel(k);
        let hint = if known.contains(&spelt.as_str()) {
            format!(" (did you mean \"{spelt}\"?)")
        } else {
            String::new()
        };
        return Err(Error::Malformed {
            what: "argument",
            reason: format!(
                "{field}: unknown key {}{hint}",
                crate::json::short_reason(&format!("\"{k}\""))
            ),
        });
    }
    Ok(map)
}

fn text_field(map: &mut Map<String, Value>, field: &str) -> Result<String, Error> {
    match map.remove(field) {
        Some(Value::String(s)) => Ok(s),
        _ => Err(Error::invalid_input(field, "expected a string")),
    }
}

/// A job to submit (rule E-11) from `{model, kind, arguments?, idempotencyKey}`; `arguments` is
/// the caller's own JSON, carried as it is.
fn submit_arg(value: &JsValue) -> Result<JobSubmit, Error> {
    let mut m = fields(
        value,
        "submit",
        &["model", "kind", "arguments", "idempotencyKey"],
    )?;
    Ok(JobSubmit {
        model: text_field(&mut m, "model")?,
        kind: Kind::parse(&text_field(&mut m, "kind")?)?,
        arguments: match m.remove("arguments") {
            None | Some(Value::Null) => Value::Object(Map::new()),
            Some(v) => v,
        },
        idempotency_key: text_field(&mut m, "idempotencyKey")?,
    })
}

/// An HTTP answer's head from `{status, headers?}`: the status and the header pairs (an object,
/// or `[name, value]` pairs as `[...response.headers]` gives them).
fn answer_arg(value: &JsValue) -> Result<(u16, Vec<(String, String)>), Error> {
    let mut m = fields(value, "answer", &["status", "headers"])?;
    let status = m
        .remove("status")
        .and_then(|v| v.as_u64())
        .and_then(|n| u16::try_from(n).ok())
        .ok_or_else(|| Error::invalid_input("status", "expected an HTTP status"))?;
    Ok((status, header_pairs(m.remove("headers"))?))
}

fn config(tracker: &[f64], wire: &JsValue) -> Result<Config, Error> {
    let mut c = Config {
        tracker: crate::config::tracker_config(tracker)?,
        ..Config::default()
    };
    if wire.is_undefined() || wire.is_null() {
        return Ok(c);
    }
    let w: WireOptions = from_js(wire, "wire")?;
    let d = Limits::DEFAULT;
    c.limits = Limits {
        max_bytes: w.max_bytes.unwrap_or(d.max_bytes),
        max_depth: w.max_depth.unwrap_or(d.max_depth),
        max_string_bytes: w.max_string_bytes.unwrap_or(d.max_string_bytes),
    };
    // Named as the caller wrote it (`wire.maxBytes`), before the endpoint names its own field.
    c.limits.check().map_err(|e| e.within("wire"))?;
    if let Some(b) = w.detect_revision {
        c.detect_revision = b;
    }
    if let Some(d) = w.job_dialect {
        c.job_dialect = d;
    }
    c.client_info = w.client_info;
    if let Some(r) = w.job_routes {
        // The Open API's routes are its own (`/v1/jobs/{id}/status`, ...): routes given for it
        // would be ignored, and an option is never ignored without a word.
        if c.job_dialect == JobDialect::OpenApi {
            return Err(Error::invalid_config(
                "jobRoutes",
                // (No value names here: a configuration message is camelCased whole.)
                "only the dialect of the MCP job tools takes routes; the Open API has its own",
            ));
        }
        let d = JobRoutes::default();
        c.job_routes = JobRoutes {
            get: r.get.unwrap_or(d.get),
            cancel: r.cancel.unwrap_or(d.cancel),
        };
    }
    Ok(c)
}

fn string_arg(value: &JsValue, field: &str) -> Result<String, Error> {
    value.as_string().ok_or_else(|| {
        Error::invalid_input(
            field,
            &format!("expected a string, got {}", args::describe(value)),
        )
    })
}

/// What arrived, as bytes: a string (its UTF-8) or a `Uint8Array`. Not size-checked here: the
/// endpoint's own limits decide what an over-limit answer means (rule E-3), never this glue.
fn bytes_arg(value: &JsValue, field: &str) -> Result<Vec<u8>, Error> {
    if let Some(s) = value.dyn_ref::<js_sys::JsString>() {
        return Ok(String::from(s).into_bytes());
    }
    if let Some(a) = value.dyn_ref::<js_sys::Uint8Array>() {
        return Ok(a.to_vec());
    }
    Err(Error::invalid_input(
        field,
        &format!(
            "expected the message as a string or a Uint8Array, got {}",
            args::describe(value)
        ),
    ))
}

/// An HTTP answer as `handleHttpAnswer` (and `Wave.handleWaitHttp`) take it: `{status,
/// headers?}` and the body, as they arrived (the core reads `Retry-After` from the headers).
pub(crate) struct HttpArgs {
    pub(crate) status: u16,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) body: Vec<u8>,
}

impl HttpArgs {
    pub(crate) fn read(answer: &JsValue, body: &JsValue) -> Result<HttpArgs, Error> {
        let (status, headers) = answer_arg(answer)?;
        Ok(HttpArgs {
            status,
            headers,
            body: bytes_arg(body, "body")?,
        })
    }

    pub(crate) fn answer(&self) -> HttpAnswer<'_> {
        HttpAnswer {
            status: self.status,
            retry_after_ms: None,
            body: &self.body,
        }
    }
}

/// Header pairs from an object or from `[name, value]` pairs (names as they came; the core
/// compares them without case).
fn header_pairs(value: Option<Value>) -> Result<Vec<(String, String)>, Error> {
    let bad = || {
        Error::invalid_input(
            "headers",
            "expected an object or [name, value] pairs of strings",
        )
    };
    match value {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Object(m)) => m
            .into_iter()
            .map(|(k, v)| match v {
                Value::String(v) => Ok((k, v)),
                _ => Err(bad()),
            })
            .collect(),
        Some(Value::Array(items)) => items
            .into_iter()
            .map(|pair| match pair {
                Value::Array(kv) => match <[Value; 2]>::try_from(kv) {
                    Ok([Value::String(k), Value::String(v)]) => Ok((k, v)),
                    _ => Err(bad()),
                },
                _ => Err(bad()),
            })
            .collect(),
        Some(_) => Err(bad()),
    }
}

/// One event as JavaScript sees it: camelCase keys, and a transmit's header pairs as an object.
pub fn event_value(event: &Event) -> Value {
    let mut v = crate::case::camel_value(crate::case::to_value(event).unwrap_or(Value::Null));
    if let Some(h) = v.get_mut("headers") {
        let pairs = core::mem::take(h);
        let mut object = Map::new();
        if let Value::Array(items) = pairs {
            for pair in items {
                if let Some([Value::String(k), value]) = pair.as_array().map(Vec::as_slice) {
                    object.insert(k.clone(), value.clone());
                }
            }
        }
        *h = Value::Object(object);
    }
    v
}

/// Drains `ep` up to and including `wake_at` or `idle`.
pub fn drain_events(ep: &mut CallEndpoint) -> Value {
    let mut out = Vec::new();
    loop {
        let e = ep.poll_event();
        let last = matches!(e, Event::WakeAt { .. } | Event::Idle);
        out.push(event_value(&e));
        if last {
            return Value::Array(out);
        }
    }
}

/// One call through the core's endpoint (see the [module docs](self)).
#[wasm_bindgen]
pub struct Endpoint {
    core: CallEndpoint,
}

impl Endpoint {
    fn batch(&mut self) -> JsResult<JsValue> {
        js_sys::JSON::parse(&longcall::json_text(&drain_events(&mut self.core)))
    }
}

/// The configuration of a call about to be created: with the host's `now`, a deadline already
/// passed is refused, so nothing is sent (E-60).
fn creating_config(config: &[f64], wire: &JsValue, now: &JsValue) -> Result<Config, Error> {
    let config = self::config(config, wire)?;
    if let Some(now) = json::opt_uint(now, "now")? {
        config.tracker.refuse_passed_deadline(now)?;
    }
    Ok(config)
}

#[wasm_bindgen]
impl Endpoint {
    /// `Endpoint.callTool(model, name, arguments, ttlMs?, config?, wire?, now?)`: calls tool
    /// `name` (`'task-2026'` or `'task-2025'`; `ttlMs` is the 2025 `task.ttl`). `name` may be
    /// the tool's `tools/list` entry instead: on 2025 one that may not run as a task is called
    /// without one (rule E-64). The first event is the `tools/call` to send. `config` is the
    /// tracker configuration (as for `Tracker`),
    /// `wire` `{maxBytes?, maxDepth?, maxStringBytes?, detectRevision?, jobRoutes?, jobDialect?,
    /// clientInfo?}`. With
    /// `now`, a `config.deadlineMs` already passed is refused before anything is sent (E-60).
    #[wasm_bindgen(js_name = callTool)]
    pub fn call_tool(
        model: JsValue,
        name: JsValue,
        arguments: JsValue,
        ttl_ms: JsValue,
        config: &[f64],
        wire: JsValue,
        now: JsValue,
    ) -> JsResult<Endpoint> {
        let core = js((|| {
            let model = args::model(&model)?;
            // The tool by its name, or as `tools/list` listed it (E-64).
            let listed: Option<Value> = if name.is_object() {
                Some(from_js(&name, "name")?)
            } else {
                None
            };
            let arguments: Value = if arguments.is_undefined() || arguments.is_null() {
                Value::Object(Map::new())
            } else {
                from_js(&arguments, "arguments")?
            };
            let ttl = json::opt_uint(&ttl_ms, "ttlMs")?;
            let config = creating_config(config, &wire, &now)?;
            match listed {
                Some(tool) => CallEndpoint::call_listed_tool(model, &tool, arguments, ttl, config),
                None => {
                    let name = string_arg(&name, "name")?;
                    CallEndpoint::call_tool(model, &name, arguments, ttl, config)
                }
            }
        })())?;
        Ok(Endpoint { core })
    }

    /// `Endpoint.submitJob(submit, config?, wire?)`: creates a job (rule E-11). `submit` is
    /// `{model, kind, arguments?, idempotencyKey}`: the key is the caller's intent, the same on
    /// every try and after a restore. The first event is the submit to send, built by the
    /// dialect of `wire.jobDialect` (`'mcp_tools'`, the default, or `'open_api'`). With `now`
    /// (`submitJob(submit, config, wire, now)`), a `config.deadlineMs` already passed is
    /// refused before anything is sent (E-60).
    #[wasm_bindgen(js_name = submitJob)]
    pub fn submit_job(
        submit: JsValue,
        config: &[f64],
        wire: JsValue,
        now: JsValue,
    ) -> JsResult<Endpoint> {
        let core = js((|| {
            CallEndpoint::submit_job(submit_arg(&submit)?, creating_config(config, &wire, &now)?)
        })())?;
        Ok(Endpoint { core })
    }

    /// `Endpoint.watch(model, handle, config?, wire?)`: watches a task or job id the host
    /// persisted; the first event is its poll, with no status assumed (rule E-6).
    pub fn watch(
        model: JsValue,
        handle: JsValue,
        config: &[f64],
        wire: JsValue,
    ) -> JsResult<Endpoint> {
        let core = js((|| {
            let model = args::model(&model)?;
            let handle = string_arg(&handle, "handle")?;
            CallEndpoint::watch(model, &handle, self::config(config, &wire)?)
        })())?;
        Ok(Endpoint { core })
    }

    /// `Endpoint.restore(text, now)`: an endpoint from `snapshot()`; requests that were in
    /// flight are handled by rule E-5 (drain `pollEvents()` next).
    pub fn restore(text: JsValue, now: JsValue) -> JsResult<Endpoint> {
        let core = js((|| {
            let text = bounded_string(&text, "snapshot")?;
            CallEndpoint::restore(&text, json::uint(&now, "now")?)
        })())?;
        Ok(Endpoint { core })
    }

    /// `snapshot()`: the versioned snapshot of the whole call (one format, rule E-5).
    pub fn snapshot(&self) -> JsResult<String> {
        js(self.core.snapshot())
    }

    /// `pollEvents()`: the events queued now, up to and including `wake_at` or `idle`.
    #[wasm_bindgen(js_name = pollEvents)]
    pub fn poll_events(&mut self) -> JsResult<JsValue> {
        self.batch()
    }

    /// `handleMessage(now, message)`: a JSON-RPC message arrived (an answer or a notification),
    /// as a string or a `Uint8Array`, exactly as it arrived. Returns the events.
    #[wasm_bindgen(js_name = handleMessage)]
    pub fn handle_message(&mut self, now: JsValue, message: JsValue) -> JsResult<JsValue> {
        let now = js(json::uint(&now, "now"))?;
        let bytes = js(bytes_arg(&message, "message"))?;
        self.core.handle_message(now, &bytes);
        self.batch()
    }

    /// `handleAnswer(now, id, message)`: the answer to request `id` on a transport that pairs
    /// them (the body of the HTTP response to its POST), as a string or a `Uint8Array`, exactly
    /// as it arrived; when it does not answer `id`, request `id` got no answer (rule E-1).
    /// Returns the events.
    #[wasm_bindgen(js_name = handleAnswer)]
    pub fn handle_answer(
        &mut self,
        now: JsValue,
        id: JsValue,
        message: JsValue,
    ) -> JsResult<JsValue> {
        let now = js(json::uint(&now, "now"))?;
        let id = js(json::uint(&id, "id"))?;
        let bytes = js(bytes_arg(&message, "message"))?;
        self.core.handle_answer(now, id, &bytes);
        self.batch()
    }

    /// `handleHttp(now, requestRef, status, retryAfterMs, body)`: a job API answered the
    /// transmit `requestRef` (rule E-7); `body` as a string or a `Uint8Array`.
    #[wasm_bindgen(js_name = handleHttp)]
    pub fn handle_http(
        &mut self,
        now: JsValue,
        request_ref: JsValue,
        status: JsValue,
        retry_after_ms: JsValue,
        body: JsValue,
    ) -> JsResult<JsValue> {
        let (now, request_ref, status, retry, body) = js((|| {
            let status = u16::try_from(json::uint(&status, "status")?)
                .map_err(|_| Error::invalid_input("status", "expected an HTTP status"))?;
            Ok((
                json::uint(&now, "now")?,
                json::uint(&request_ref, "requestRef")?,
                status,
                json::opt_uint(&retry_after_ms, "retryAfterMs")?,
                bytes_arg(&body, "body")?,
            ))
        })())?;
        self.core.handle_http(
            now,
            request_ref,
            HttpAnswer {
                status,
                retry_after_ms: retry,
                body: &body,
            },
        );
        self.batch()
    }

    /// `handleHttpAnswer(now, requestRef, {status, headers?}, body)`: an HTTP answer to the
    /// transmit `requestRef`, with its headers: a job API's (rule E-7), or the response to the
    /// POST of an `rpc` transmit (E-67). `Retry-After` (seconds or an HTTP date, measured from
    /// `now`) and `x-sume-request-id` are read by the core. `body` as a string or a
    /// `Uint8Array`, exactly as it arrived.
    #[wasm_bindgen(js_name = handleHttpAnswer)]
    pub fn handle_http_answer(
        &mut self,
        now: JsValue,
        request_ref: JsValue,
        answer: JsValue,
        body: JsValue,
    ) -> JsResult<JsValue> {
        let (now, request_ref, answer) = js((|| {
            let now = json::uint(&now, "now")?;
            let request_ref = json::uint(&request_ref, "requestRef")?;
            Ok((now, request_ref, HttpArgs::read(&answer, &body)?))
        })())?;
        self.core
            .handle_http_headers(now, request_ref, answer.answer(), &answer.headers);
        self.batch()
    }

    /// `handleTransportFailure(now, id)`: the request `id` got no answer (a connection error, a
    /// local timeout). A request already answered is left alone.
    #[wasm_bindgen(js_name = handleTransportFailure)]
    pub fn handle_transport_failure(&mut self, now: JsValue, id: JsValue) -> JsResult<JsValue> {
        let now = js(json::uint(&now, "now"))?;
        let id = js(json::uint(&id, "id"))?;
        self.core.handle_transport_failure(now, id);
        self.batch()
    }

    /// `handleTimeout(now)`: time passed (at or after the last `wake_at`).
    #[wasm_bindgen(js_name = handleTimeout)]
    pub fn handle_timeout(&mut self, now: JsValue) -> JsResult<JsValue> {
        let now = js(json::uint(&now, "now"))?;
        self.core.handle_timeout(now);
        self.batch()
    }

    /// `pressCancel(now)`: the user pressed cancel. Throws the core's coded refusal (nothing
    /// goes on the wire then). A press while the create is out is kept and made once its
    /// answer names the call (E-65).
    #[wasm_bindgen(js_name = pressCancel)]
    pub fn press_cancel(&mut self, now: JsValue) -> JsResult<JsValue> {
        let now = js(json::uint(&now, "now"))?;
        js(self.core.cancel_pressed(now))?;
        self.batch()
    }

    /// `answerInput(now, key, response)`: the user answered input `key` (a task input, or an
    /// MRTR input of the call itself). Throws on a key never asked.
    #[wasm_bindgen(js_name = answerInput)]
    pub fn answer_input(
        &mut self,
        now: JsValue,
        key: JsValue,
        response: JsValue,
    ) -> JsResult<JsValue> {
        let (now, key, response) = js((|| {
            let response: Value = from_js(&response, "response")?;
            Ok((json::uint(&now, "now")?, string_arg(&key, "key")?, response))
        })())?;
        js(self.core.answer_input(now, &key, response))?;
        self.batch()
    }

    /// `stopWatching(now)`: the host stops watching (the call goes on).
    #[wasm_bindgen(js_name = stopWatching)]
    pub fn stop_watching(&mut self, now: JsValue) -> JsResult<JsValue> {
        let now = js(json::uint(&now, "now"))?;
        self.core.stop_watching(now);
        self.batch()
    }

    /// `refresh(now)`: a person comes to look (a page reloaded, a job resumed from its record, a
    /// view back on screen); the next poll moves to the earliest time the floors allow (P-15).
    pub fn refresh(&mut self, now: JsValue) -> JsResult<JsValue> {
        let now = js(json::uint(&now, "now"))?;
        self.core.handle_refresh(now);
        self.batch()
    }

    /// `runRecord()`: the run record, camelCase.
    #[wasm_bindgen(js_name = runRecord)]
    pub fn run_record(&self) -> JsResult<JsValue> {
        crate::case::write_js(&self.core.tracker().record())
    }

    /// `watchAgain(config?, wire?)`: after watching stopped with the call going on (a deadline,
    /// `stopWatching`), a new endpoint watching the same call (`CallEndpoint::watch_again`):
    /// its first poll at this watch's floors (P-16), the status last seen shown meanwhile, or a
    /// call stopped in an MRTR round going on from it (E-70). It keeps the job submit's digest
    /// (`checkSubmit`, E-66). Throws `invalid_input` unless watching stopped on a call, named
    /// or in an open MRTR round, that has not settled.
    #[wasm_bindgen(js_name = watchAgain)]
    pub fn watch_again(&self, config: &[f64], wire: JsValue) -> JsResult<Endpoint> {
        let core = js((|| self.core.watch_again(self::config(config, &wire)?))())?;
        Ok(Endpoint { core })
    }

    /// `checkSubmit(submit)`: before continuing a record found under an intent key, checks
    /// that `submit` (as `Endpoint.submitJob` takes it) is the job this endpoint submitted
    /// (rule E-66). Throws `duplicate` when it submitted another model, other arguments or
    /// another key; an endpoint that watches an id cannot tell and accepts.
    #[wasm_bindgen(js_name = checkSubmit)]
    pub fn check_submit(&self, submit: JsValue) -> JsResult<()> {
        js((|| self.core.check_submit(&submit_arg(&submit)?))())
    }

    /// The idempotency key of the job submit, while the job is not created yet (rule E-11).
    #[wasm_bindgen(getter, js_name = submitKey)]
    pub fn submit_key(&self) -> JsValue {
        self.core
            .submit_key()
            .map_or(JsValue::UNDEFINED, JsValue::from_str)
    }

    /// The tool called (`callTool`), restored with the snapshot; `undefined` for a job or a
    /// watched handle.
    #[wasm_bindgen(getter, js_name = toolName)]
    pub fn tool_name(&self) -> JsValue {
        self.core
            .tool_name()
            .map_or(JsValue::UNDEFINED, JsValue::from_str)
    }

    /// How often the job submit was sent so far.
    #[wasm_bindgen(getter, js_name = submitTries)]
    pub fn submit_tries(&self) -> u32 {
        self.core.submit_tries()
    }

    /// The model, as its code (`MODELS` names it: the glue reads it so, as the tracker's).
    #[wasm_bindgen(getter)]
    pub fn model(&self) -> u32 {
        self.core.model().code().into()
    }

    /// The task or job id, once known.
    #[wasm_bindgen(getter)]
    pub fn id(&self) -> JsValue {
        self.core
            .tracker()
            .handle()
            .map_or(JsValue::UNDEFINED, JsValue::from_str)
    }

    /// The status held (the first terminal one, once seen), as its code (`STATUSES`); 255 for
    /// none.
    #[wasm_bindgen(getter)]
    pub fn status(&self) -> u32 {
        self.core
            .tracker()
            .status()
            .map_or(255, |s| s.code().into())
    }

    /// What the cancel button shows, as its code (`BUTTON_STATES`).
    #[wasm_bindgen(getter)]
    pub fn button(&self) -> u32 {
        self.core.tracker().button().code().into()
    }

    /// The verified outcome, once settled, as its code (`OUTCOMES`); 255 for none.
    #[wasm_bindgen(getter)]
    pub fn outcome(&self) -> u32 {
        self.core
            .tracker()
            .outcome()
            .map_or(255, |o| o.code().into())
    }

    /// True once settled or stopped.
    #[wasm_bindgen(getter, js_name = isDone)]
    pub fn is_done(&self) -> bool {
        self.core.tracker().is_done()
    }

    /// `openPrompts()`: the `ask_user` events released and not answered yet (R-7), as
    /// `pollEvents()` gave them. After `restore`, show these again (the core does not ask a key
    /// twice) and answer each with `answerInput`. On 2025 a resumed prompt is held back until
    /// the server sends its request again, then comes as an `ask_user` event.
    #[wasm_bindgen(js_name = openPrompts)]
    pub fn open_prompts(&self) -> JsResult<JsValue> {
        let prompts = self
            .core
            .open_prompts()
            .map(|(key, request, call)| {
                event_value(&Event::AskUser {
                    key: key.into(),
                    request: request.clone(),
                    call,
                })
            })
            .collect();
        js_sys::JSON::parse(&longcall::json_text(&Value::Array(prompts)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use longcall::Model;
    use serde_json::json;

    #[test]
    fn events_are_camel_case_and_payloads_untouched() {
        let mut ep = CallEndpoint::call_tool(
            Model::Task2026,
            "render",
            json!({}),
            None,
            Config::default(),
        )
        .unwrap();
        let batch = drain_events(&mut ep);
        let first = &batch[0];
        assert_eq!(first["type"], "transmit");
        assert_eq!(first["kind"], "rpc");
        assert_eq!(first["id"], 1);
        assert_eq!(first["headers"]["Mcp-Name"], "render");
        assert_eq!(batch.as_array().unwrap().last().unwrap()["type"], "idle");
        let answer = r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[],"structured_content":{"snake_key":1}}}"#;
        ep.handle_message(1, answer.as_bytes());
        let batch = drain_events(&mut ep);
        let settled = batch
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["type"] == "settled")
            .unwrap();
        assert_eq!(settled["outcome"], "succeeded");
        assert_eq!(
            settled["result"]["structured_content"]["snake_key"], 1,
            "the server's result is carried as it is"
        );
    }

    #[test]
    fn header_pairs_from_objects_and_pairs() {
        let h = header_pairs(Some(json!({"Retry-After": "2"}))).unwrap();
        assert_eq!(h, vec![("Retry-After".to_string(), "2".to_string())]);
        let h = header_pairs(Some(json!([["x-sume-request-id", "req_1"]]))).unwrap();
        assert_eq!(
            h,
            vec![("x-sume-request-id".to_string(), "req_1".to_string())]
        );
        assert_eq!(
            header_pairs(Some(json!([["a", 1]]))).unwrap_err().code(),
            "invalid_input"
        );
    }

    #[test]
    fn http_transmits_say_request_ref() {
        let mut ep = CallEndpoint::watch(Model::Job, "job_1", Config::default()).unwrap();
        let batch = drain_events(&mut ep);
        assert_eq!(batch[0]["kind"], "http");
        assert_eq!(batch[0]["requestRef"], 1);
        assert_eq!(batch[0]["path"], "/jobs/job_1");
    }
}
