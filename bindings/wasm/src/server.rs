//! The reference servers as JavaScript classes: `TaskRegistry` (an MCP task server, 2026 or
//! 2025) and `JobBook` (a Sume-style job server), plus `renderTask2026`, which writes a task view
//! as the exact 2026 wire task, so a JavaScript server never re-implements the wire.
//!
//! Conventions (the same as every export):
//!
//! * Structured arguments and results cross as JSON values (`pkg/api.js` users see plain
//!   objects; times are plain numbers, milliseconds), their keys in camelCase as on the MCP wire
//!   and in the rest of the package (`taskId`, `pollIntervalMs`, `httpStatus`): the core's
//!   snake_case stays in snapshots only. Values that are the caller's own JSON (a tool result's
//!   `value`, input requests and answers, a job's `result`, error `data`) pass untouched
//!   ([`crate::case`]).
//! * Methods whose core answer is `Result<T, RpcError>` / `Result<T, ApiError>` return a **domain
//!   answer**, `{ok: true, value}` or `{ok: false, error}`: an unknown task id is a normal answer
//!   to send on the wire, not an exception.
//! * Bad input (a number that is not a time, a missing string, a config of the wrong shape) and
//!   host bugs the core refuses (a duplicate task id, a reused input key) **throw** an `Error`
//!   with a `code` (`invalid_input`, `duplicate`, ...). Nothing panics.

use longcall::ownership::Owner;
use longcall::server::{
    JobBook as JobCore, JobBookConfig, RegistryConfig, ResultAnswer, TaskRegistry as TaskCore,
    WaitFor,
};
use longcall::snapshot;
use longcall::view::{JobView, RpcError, TaskView, ToolResult};
use longcall::wire::{mcp2025, mcp2026};
use longcall::{Error, Model};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{Map, Value};
use wasm_bindgen::prelude::*;

use crate::args;
use crate::case::{read_js, write_js};
use crate::errors::{js, JsResult};
use crate::json::{self, bounded_string, from_js, to_js};

/// `{ok: true, value}` or `{ok: false, error}`: the domain answer of a client-side method, its
/// value or error in camelCase. Built as a `Value`: the converter keeps a member named `value`
/// as the caller's own JSON, so the wrapper is added after the conversion.
fn answer<T: Serialize, E: Serialize>(r: Result<T, E>) -> JsResult<JsValue> {
    let (ok, key, inner) = match &r {
        Ok(value) => (true, "value", crate::case::to_value(value)),
        Err(error) => (false, "error", crate::case::to_value(error)),
    };
    let inner =
        inner.map_err(|e| crate::errors::to_js(&Error::invalid_input("output", &e.to_string())))?;
    let mut out = Map::new();
    out.insert("ok".into(), Value::Bool(ok));
    out.insert(key.into(), crate::case::camel_value(inner));
    to_js(&Value::Object(out))
}

fn text_to<T: DeserializeOwned>(text: &str, field: &str) -> Result<T, Error> {
    json::parse(text, field)
}

/// A config object laid over the defaults: `{}` / `undefined` / `null` give the defaults, any
/// key given (camelCase, `pollIntervalMs`) replaces that default. A key the configuration does
/// not have is `invalid_input` naming it as written (an `invalid_config` message is re-spelled
/// in camelCase whole, which would hide a snake_case key), with the key it is closest to and the
/// keys there are. A value of the wrong type is `malformed` naming its key, in JavaScript's
/// words (`expected an integer of 0 or more`, not `u64`).
fn config_over<T: Serialize + DeserializeOwned>(value: &JsValue, default: T) -> Result<T, Error> {
    if value.is_undefined() || value.is_null() {
        return Ok(default);
    }
    let text = serde_json::to_string(&default)
        .map_err(|e| Error::invalid_input("config", &e.to_string()))?;
    let (defaults, given) = config_given(value, &text)?;
    let read = |base: Object| serde_json::from_value::<T>(Value::Object(base));
    let mut base = defaults.clone();
    for (k, v) in &given {
        base.insert(crate::case::snake(k), v.clone());
    }
    read(base).map_err(|e| config_refused(e, &defaults, given, &|one| read(one).err()))
}

/// A JSON object's members.
type Object = Map<String, Value>;

/// The defaults (`text`, snake_case) and the given object, whose keys must all be theirs.
fn config_given(value: &JsValue, text: &str) -> Result<(Object, Object), Error> {
    let given: Value = from_js(value, "config")?;
    let Value::Object(given) = given else {
        return Err(Error::invalid_input("config", "expected an object"));
    };
    let defaults: Object = text_to(text, "config")?;
    for k in given.keys() {
        let member = crate::case::snake(k);
        if crate::errors::camel(&member) != *k || !defaults.contains_key(&member) {
            return Err(unknown_config_key(k, &defaults));
        }
    }
    Ok((defaults, given))
}

/// serde's refusal `e` of the `given` configuration, naming the member: serde names none in a
/// derived struct, so the first given one that the `defaults` will not take alone (`refuses`)
/// is the one.
fn config_refused(
    e: serde_json::Error,
    defaults: &Object,
    given: Object,
    refuses: &dyn Fn(Object) -> Option<serde_json::Error>,
) -> Error {
    let named = given.iter().find_map(|(k, v)| {
        let mut one = defaults.clone();
        one.insert(crate::case::snake(k), v.clone());
        refuses(one).map(|e| (format!("config.{}", json::short_reason(k)), e))
    });
    let (field, e) = named.unwrap_or_else(|| (String::from("config"), e));
    crate::case::refused(&e, Value::Object(given), &field)
}

/// `invalid_input` for a configuration key `known` (snake_case, as the core writes it) lacks:
/// the key as written, the one it is closest to, and the keys there are, as JavaScript spells
/// them.
fn unknown_config_key(key: &str, known: &Object) -> Error {
    let spelt: Vec<String> = known.keys().map(|k| crate::errors::camel(k)).collect();
    let names: Vec<&str> = spelt.iter().map(String::as_str).collect();
    let near = crate::case::near_key(key, &names);
    let hint = near.map_or(String::new(), |k| format!(" (did you mean \"{k}\"?)"));
    Error::invalid_input(
        "config",
        &format!(
            "unknown key \"{}\"{hint}; expected one of {}",
            json::short_reason(key),
            spelt.join(", ")
        ),
    )
}

fn opt_string(value: &JsValue, field: &str) -> Result<Option<String>, Error> {
    if value.is_undefined() || value.is_null() {
        Ok(None)
    } else {
        bounded_string(value, field).map(Some)
    }
}

/// A tool result from the `CallToolResult` object itself (`isError: true` read out).
fn tool_result(value: &JsValue) -> Result<ToolResult, Error> {
    let value: Value = from_js(value, "result")?;
    if !value.is_object() {
        return Err(Error::invalid_input(
            "result",
            "expected a CallToolResult object",
        ));
    }
    let is_error = value.get("isError").and_then(Value::as_bool) == Some(true);
    Ok(ToolResult {
        is_error,
        value: value.into(),
    })
}

/// `{key: response}` or `[[key, response], ...]` (answer order kept).
fn responses(value: &JsValue) -> Result<Vec<(String, Value)>, Error> {
    let v: Value = from_js(value, "responses")?;
    match v {
        Value::Object(m) => Ok(m.into_iter().collect()),
        Value::Array(_) => text_to(&longcall::json_text(&v), "responses"),
        _ => Err(Error::invalid_input(
            "responses",
            "expected an object {key: response} or an array of [key, response]",
        )),
    }
}

// ---- TaskRegistry ------------------------------------------------------------------------------

/// The reference MCP task server state for one revision (`"task-2026"` or `"task-2025"`).
/// The host owns the clock (`now` in ms) and mints the unguessable task ids.
#[wasm_bindgen]
pub struct TaskRegistry {
    core: TaskCore,
}

#[wasm_bindgen]
impl TaskRegistry {
    /// `new TaskRegistry(model, config?)`. `config` is a partial `RegistryConfig`
    /// (`{ttlMs, maxTtlMs, pollIntervalMs, retentionMs, maxTasksPerPrincipal,
    /// cancel: "cooperative" | "immediate", pageSize}`) laid over the defaults.
    #[wasm_bindgen(constructor)]
    pub fn new(model: JsValue, config: JsValue) -> JsResult<TaskRegistry> {
        let model = js(args::model(&model))?;
        let config = js(config_over(&config, RegistryConfig::default()))?;
        js(check_registry_config(&config))?;
        Ok(TaskRegistry {
            core: js(TaskCore::new(model, config))?,
        })
    }

    /// The revision served.
    #[wasm_bindgen(getter)]
    pub fn model(&self) -> String {
        self.core.model().as_str().into()
    }

    /// `config()`: the configuration in force (a full `RegistryConfig`).
    pub fn config(&self) -> JsResult<JsValue> {
        write_js(self.core.config())
    }

    /// `setConfig(config)`: a partial `RegistryConfig` laid over the defaults, in force for the
    /// tasks created from now on (rule S-9: a restored registry takes the new process's).
    #[wasm_bindgen(js_name = setConfig)]
    pub fn set_config(&mut self, config: JsValue) -> JsResult<()> {
        let config = js(config_over(&config, RegistryConfig::default()))?;
        js(check_registry_config(&config))?;
        js(self.core.set_config(config))
    }

    /// `unsettled()`: the ids of the tasks not settled yet; after a restore, the tasks whose
    /// work ended with the old process, to resume or fail (rule S-9).
    pub fn unsettled(&self) -> JsResult<JsValue> {
        write_js(&self.core.unsettled().collect::<Vec<_>>())
    }

    /// How many tasks are stored (terminal ones not yet purged included).
    #[wasm_bindgen(getter)]
    pub fn size(&self) -> u32 {
        u32::try_from(self.core.len()).unwrap_or(u32::MAX)
    }

    /// True when no task is stored.
    #[wasm_bindgen(js_name = isEmpty)]
    pub fn is_empty(&self) -> bool {
        self.core.is_empty()
    }

    /// `handleTimeout(now)`: runs TTL expiry and retention; returns `{failed: [ids], purged:
    /// [ids]}` (stop the workers of both). Call it when `now` reaches `pollTimeout()`.
    #[wasm_bindgen(js_name = handleTimeout)]
    pub fn handle_timeout(&mut self, now: JsValue) -> JsResult<JsValue> {
        let now = js(json::uint(&now, "now"))?;
        write_js(&self.core.handle_timeout(now))
    }

    /// `pollTimeout()`: the next absolute time `handleTimeout` has work, or `undefined`. Ask again
    /// after every call that changes the registry.
    #[wasm_bindgen(js_name = pollTimeout)]
    pub fn poll_timeout(&self) -> Option<f64> {
        self.core.poll_timeout().map(|t| t as f64)
    }

    /// `create(now, principal, taskId, requestedTtlMs?)`: a new task (the `CreateTaskResult`
    /// body as a view). Throws `duplicate`, `limit_reached` or `invalid_input` (host errors).
    pub fn create(
        &mut self,
        now: JsValue,
        principal: JsValue,
        task_id: JsValue,
        requested_ttl_ms: JsValue,
    ) -> JsResult<JsValue> {
        let now = js(json::uint(&now, "now"))?;
        let principal = js(bounded_string(&principal, "principal"))?;
        let task_id = js(bounded_string(&task_id, "taskId"))?;
        let ttl = js(json::opt_uint(&requested_ttl_ms, "requestedTtlMs"))?;
        let view = js(self.core.create(now, &principal, &task_id, ttl))?;
        write_js(&view)
    }

    /// `peek(taskId)`: worker view (detailed on 2026), no principal check; `null` if unknown.
    pub fn peek(&self, task_id: JsValue) -> JsResult<JsValue> {
        let task_id = js(bounded_string(&task_id, "taskId"))?;
        match self.core.peek(&task_id) {
            Some(v) => write_js(&v),
            None => Ok(JsValue::NULL),
        }
    }

    /// `cancelRequested(taskId)`: whether a client asked to cancel (cooperative workers poll it).
    #[wasm_bindgen(js_name = cancelRequested)]
    pub fn cancel_requested(&self, task_id: JsValue) -> JsResult<bool> {
        let task_id = js(bounded_string(&task_id, "taskId"))?;
        Ok(self.core.cancel_requested(&task_id))
    }

    /// `requestInput(now, taskId, key, request)`: ask the client (`input_required` until
    /// answered). Returns a `WriteOutcome` (`{kind: "applied" | "ignored_terminal" | ...}`);
    /// throws `duplicate` for a key used before on this task.
    #[wasm_bindgen(js_name = requestInput)]
    pub fn request_input(
        &mut self,
        now: JsValue,
        task_id: JsValue,
        key: JsValue,
        request: JsValue,
    ) -> JsResult<JsValue> {
        let now = js(json::uint(&now, "now"))?;
        let task_id = js(bounded_string(&task_id, "taskId"))?;
        let key = js(bounded_string(&key, "key"))?;
        let request: Value = js(from_js(&request, "request"))?;
        write_js(&js(self.core.request_input(now, &task_id, &key, request))?)
    }

    /// `takeInputResponses(taskId)`: the answers since the last call, `[[key, response], ...]`
    /// in answer order (drained).
    #[wasm_bindgen(js_name = takeInputResponses)]
    pub fn take_input_responses(&mut self, task_id: JsValue) -> JsResult<JsValue> {
        let task_id = js(bounded_string(&task_id, "taskId"))?;
        to_js(&self.core.take_input_responses(&task_id))
    }

    /// `setStatusMessage(now, taskId, message | null)`: a `WriteOutcome`.
    #[wasm_bindgen(js_name = setStatusMessage)]
    pub fn set_status_message(
        &mut self,
        now: JsValue,
        task_id: JsValue,
        message: JsValue,
    ) -> JsResult<JsValue> {
        let now = js(json::uint(&now, "now"))?;
        let task_id = js(bounded_string(&task_id, "taskId"))?;
        let message = js(opt_string(&message, "message"))?;
        write_js(&self.core.set_status_message(now, &task_id, message))
    }

    /// `complete(now, taskId, callToolResult)`: the tool produced its result (`isError` read
    /// from it). A `WriteOutcome`; the first terminal write wins.
    pub fn complete(
        &mut self,
        now: JsValue,
        task_id: JsValue,
        result: JsValue,
    ) -> JsResult<JsValue> {
        let now = js(json::uint(&now, "now"))?;
        let task_id = js(bounded_string(&task_id, "taskId"))?;
        let result = js(tool_result(&result))?;
        write_js(&self.core.complete(now, &task_id, result))
    }

    /// `fail(now, taskId, {code, message, data?})`: execution hit a JSON-RPC error.
    pub fn fail(&mut self, now: JsValue, task_id: JsValue, error: JsValue) -> JsResult<JsValue> {
        let now = js(json::uint(&now, "now"))?;
        let task_id = js(bounded_string(&task_id, "taskId"))?;
        let error: RpcError = js(read_js(&error, "error"))?;
        write_js(&self.core.fail(now, &task_id, error))
    }

    /// `settleCancelled(now, taskId)`: the work stopped after a cancel request.
    #[wasm_bindgen(js_name = settleCancelled)]
    pub fn settle_cancelled(&mut self, now: JsValue, task_id: JsValue) -> JsResult<JsValue> {
        let now = js(json::uint(&now, "now"))?;
        let task_id = js(bounded_string(&task_id, "taskId"))?;
        write_js(&self.core.settle_cancelled(now, &task_id))
    }

    /// `get(now, principal, taskId)`: `tasks/get`; `{ok, value: TaskView}` or `{ok: false,
    /// error: {code: -32602, ...}}`.
    pub fn get(&mut self, now: JsValue, principal: JsValue, task_id: JsValue) -> JsResult<JsValue> {
        let (now, principal, task_id) = client_args(&now, &principal, &task_id)?;
        answer(self.core.get(now, &principal, &task_id))
    }

    /// `result(now, principal, taskId)`: 2025 `tasks/result` (2026: `-32601`).
    pub fn result(
        &mut self,
        now: JsValue,
        principal: JsValue,
        task_id: JsValue,
    ) -> JsResult<JsValue> {
        let (now, principal, task_id) = client_args(&now, &principal, &task_id)?;
        answer(self.core.result(now, &principal, &task_id))
    }

    /// `update(now, principal, taskId, responses)`: `tasks/update`; `responses` is
    /// `{key: response}` or `[[key, response], ...]`. `{ok, value: {accepted, ignored}}`.
    pub fn update(
        &mut self,
        now: JsValue,
        principal: JsValue,
        task_id: JsValue,
        input_responses: JsValue,
    ) -> JsResult<JsValue> {
        let (now, principal, task_id) = client_args(&now, &principal, &task_id)?;
        let r = js(responses(&input_responses))?;
        answer(self.core.update(now, &principal, &task_id, r))
    }

    /// `cancel(now, principal, taskId)`: `tasks/cancel`; `{ok, value: {kind: "ack"}}` (2026) or
    /// `{kind: "task", task}` (2025).
    pub fn cancel(
        &mut self,
        now: JsValue,
        principal: JsValue,
        task_id: JsValue,
    ) -> JsResult<JsValue> {
        let (now, principal, task_id) = client_args(&now, &principal, &task_id)?;
        answer(self.core.cancel(now, &principal, &task_id))
    }

    /// `list(now, principal, cursor?)`: 2025 `tasks/list` (2026: `-32601`).
    pub fn list(&mut self, now: JsValue, principal: JsValue, cursor: JsValue) -> JsResult<JsValue> {
        let now = js(json::uint(&now, "now"))?;
        let principal = js(bounded_string(&principal, "principal"))?;
        let cursor = js(opt_string(&cursor, "cursor"))?;
        answer(self.core.list(now, &principal, cursor.as_deref()))
    }

    /// `snapshot()`: the versioned snapshot text.
    pub fn snapshot(&self) -> JsResult<String> {
        js(snapshot::save(&self.core))
    }

    /// `TaskRegistry.restore(text)`: a registry from a snapshot; it continues exactly.
    pub fn restore(text: JsValue) -> JsResult<TaskRegistry> {
        let text = js(bounded_string(&text, "snapshot"))?;
        Ok(TaskRegistry {
            core: js(snapshot::restore(&text))?,
        })
    }
}

fn client_args(
    now: &JsValue,
    principal: &JsValue,
    task_id: &JsValue,
) -> JsResult<(u64, String, String)> {
    Ok((
        js(json::uint(now, "now"))?,
        js(bounded_string(principal, "principal"))?,
        js(bounded_string(task_id, "taskId"))?,
    ))
}

/// Times a JavaScript number cannot hold exactly are refused up front.
fn check_registry_config(c: &RegistryConfig) -> Result<(), Error> {
    let max = json::MAX_SAFE as u64;
    for (field, v) in [
        ("ttl_ms", c.ttl_ms),
        ("max_ttl_ms", c.max_ttl_ms),
        ("poll_interval_ms", c.poll_interval_ms),
        ("retention_ms", c.retention_ms),
    ] {
        if v.is_some_and(|v| v > max) {
            return Err(Error::invalid_config(field, "must be at most 2^53-1"));
        }
    }
    Ok(())
}

/// `renderTask2026(view, resultType?)`: the 2026 wire task for a `TaskView` (from
/// `TaskRegistry.get/peek/create`): `"task"` for a `CreateTaskResult`, `"complete"` for a
/// `tasks/get` answer, `null`/`undefined` for `notifications/tasks` params. ISO timestamps,
/// `ttlMs` always present (null = unlimited), `inputRequests` / `result` / `error` by status.
#[wasm_bindgen(js_name = renderTask2026)]
pub fn render_task_2026(view: JsValue, result_type: JsValue) -> JsResult<JsValue> {
    let view = js(wire_view(&view, Model::Task2026))?;
    let rt = js(opt_string(&result_type, "resultType"))?;
    if let Some(rt) = rt
        .as_deref()
        .filter(|rt| !matches!(*rt, "task" | "complete"))
    {
        return Err(crate::errors::to_js(&Error::invalid_input(
            "resultType",
            &format!(
                "expected \"task\", \"complete\" or null, got \"{}\"",
                json::short_reason(rt)
            ),
        )));
    }
    to_js(&mcp2026::Task::from_view(&view, rt.as_deref()))
}

/// A task view to render: of the revision, with the times every wire task carries (a view the
/// registry handed out has them; one written by hand without them would say 1970).
fn wire_view(value: &JsValue, model: Model) -> Result<TaskView, Error> {
    // A wire task handed back (its `result` a tool result, its times ISO text) would be refused
    // for whichever of its members is read first; name what it is instead.
    let view: TaskView = read_js(value, "view").map_err(|e| {
        let wire = js_sys::Reflect::has(value, &JsValue::from_str("createdAt")).unwrap_or(false);
        if wire {
            Error::invalid_input(
                "view",
                "this is a wire task already (it has createdAt): render the view the registry handed out (TaskRegistry.get, peek or create)",
            )
        } else {
            e
        }
    })?;
    view.status.expect_in(model)?;
    if view.created_at_ms.is_none() || view.last_updated_at_ms.is_none() {
        return Err(Error::invalid_input(
            "view",
            "a wire task needs createdAtMs and lastUpdatedAtMs: pass the view the registry handed out",
        ));
    }
    Ok(view)
}

/// `renderTask2025(view)`: the 2025 wire task for a `TaskView` (`CreateTaskResult.task`,
/// `tasks/get`, `tasks/cancel`, `notifications/tasks/status` params): ISO timestamps, `ttl`
/// always present (null = unlimited), `pollInterval`; no payload (2025 hands it over on
/// `tasks/result`).
#[wasm_bindgen(js_name = renderTask2025)]
pub fn render_task_2025(view: JsValue) -> JsResult<JsValue> {
    let view = js(wire_view(&view, Model::Task2025))?;
    to_js(&mcp2025::Task::from_view(&view))
}

/// `renderTaskResult2025(taskId, answer)`: what a 2025 server answers to `tasks/result`, from
/// `TaskRegistry.result`'s value: `{result}` (the tool result with the related-task `_meta`
/// added), `{error}` (the stored error, or the core's error for a cancelled task), or `null`
/// while the task is not terminal (hold the request and ask again after the next write).
#[wasm_bindgen(js_name = renderTaskResult2025)]
pub fn render_task_result_2025(task_id: JsValue, answer: JsValue) -> JsResult<JsValue> {
    let task_id = js(bounded_string(&task_id, "taskId"))?;
    // Read by its `kind` rather than as a `ResultAnswer`: a derived reader of the whole enum
    // would cost the server module more than everything else here.
    let answer: Value = js(from_js(&answer, "answer"))?;
    let field = |key: &str| answer.get(key).cloned().unwrap_or(Value::Null);
    match answer.get("kind").and_then(Value::as_str) {
        Some("result") => {
            let value = field("result").get("value").cloned().unwrap_or(Value::Null);
            let stored = ToolResult {
                is_error: value.get("isError").and_then(Value::as_bool) == Some(true),
                value: value.into(),
            };
            to_js(&serde_json::json!({ "result": mcp2025::task_result(&task_id, &stored) }))
        }
        Some("error") => to_js(&serde_json::json!({ "error": field("error") })),
        Some("cancelled") => {
            to_js(&serde_json::json!({ "error": ResultAnswer::Cancelled.rpc_error() }))
        }
        Some("blocked") => Ok(JsValue::NULL),
        _ => Err(crate::errors::to_js(&Error::invalid_input(
            "answer",
            "expected the value of TaskRegistry.result",
        ))),
    }
}

/// `missingCapability2026(message)`: the `-32021` error object a 2026 server answers to a
/// request without the tasks capability (`data.requiredCapabilities.extensions[...]` set).
#[wasm_bindgen(js_name = missingCapability2026)]
pub fn missing_capability_2026(message: JsValue) -> JsResult<JsValue> {
    let message = js(bounded_string(&message, "message"))?;
    to_js(&mcp2026::missing_capability_error(&message))
}

// ---- JobBook -----------------------------------------------------------------------------------

/// The reference Sume job server state: ownership, queue-first admission, the cancel window,
/// batch waits. It has no timers; call `dispatch(now)` after every change.
#[wasm_bindgen]
pub struct JobBook {
    core: JobCore,
}

#[derive(Serialize)]
struct Peeked<'a> {
    owner: &'a Owner,
    job: &'a JobView,
}

fn owner(value: &JsValue) -> Result<Owner, Error> {
    read_js(value, "owner")
}

#[wasm_bindgen]
impl JobBook {
    /// `new JobBook(config?)`: a partial `JobBookConfig` (`{concurrencyPerWorkspace,
    /// queueLimitPerWorkspace, costPerJob}`) laid over the defaults (2, 20, 1).
    #[wasm_bindgen(constructor)]
    pub fn new(config: JsValue) -> JsResult<JobBook> {
        let config = js(config_over(&config, JobBookConfig::default()))?;
        if config.cost_per_job > json::MAX_SAFE as u64 {
            return Err(crate::errors::to_js(&Error::invalid_config(
                "cost_per_job",
                "must be at most 2^53-1",
            )));
        }
        Ok(JobBook {
            core: js(JobCore::new(config))?,
        })
    }

    /// `config()`: the configuration in force.
    pub fn config(&self) -> JsResult<JsValue> {
        write_js(self.core.config())
    }

    /// How many jobs the book holds.
    #[wasm_bindgen(getter)]
    pub fn size(&self) -> u32 {
        u32::try_from(self.core.len()).unwrap_or(u32::MAX)
    }

    /// True when the book holds no job.
    #[wasm_bindgen(js_name = isEmpty)]
    pub fn is_empty(&self) -> bool {
        self.core.is_empty()
    }

    /// `setCredits(workspace, balance | null)`: `null` is unlimited.
    #[wasm_bindgen(js_name = setCredits)]
    pub fn set_credits(&mut self, workspace: JsValue, balance: JsValue) -> JsResult<()> {
        let workspace = js(bounded_string(&workspace, "workspace"))?;
        let balance = js(json::opt_uint(&balance, "balance"))?;
        self.core.set_credits(&workspace, balance);
        Ok(())
    }

    /// `credits(workspace)`: the balance, or `null` (unlimited).
    pub fn credits(&self, workspace: JsValue) -> JsResult<Option<f64>> {
        let workspace = js(bounded_string(&workspace, "workspace"))?;
        Ok(self.core.credits(&workspace).map(|c| c as f64))
    }

    /// `peek(jobId)`: `{owner, job}` without an ownership check, or `null`.
    pub fn peek(&self, job_id: JsValue) -> JsResult<JsValue> {
        let job_id = js(bounded_string(&job_id, "jobId"))?;
        match self.core.peek(&job_id) {
            Some((owner, job)) => write_js(&Peeked {
                owner: &owner,
                job: &job,
            }),
            None => Ok(JsValue::NULL),
        }
    }

    /// `count(workspace, status)`: jobs of the workspace in that status (phase).
    pub fn count(&self, workspace: JsValue, status: JsValue) -> JsResult<u32> {
        let workspace = js(bounded_string(&workspace, "workspace"))?;
        let status = js(args::status(Model::Job, &status, "status"))?;
        Ok(u32::try_from(self.core.count(&workspace, status)).unwrap_or(u32::MAX))
    }

    /// `submit(now, owner, jobId, idempotencyKey?)`: `jobs_submit`; `{ok, value: JobView}` or
    /// `{ok: false, error: ApiError}` (400, 402, 429 `queue_full`, 500). Call `dispatch` after.
    pub fn submit(
        &mut self,
        now: JsValue,
        owner_: JsValue,
        job_id: JsValue,
        idempotency_key: JsValue,
    ) -> JsResult<JsValue> {
        let now = js(json::uint(&now, "now"))?;
        let owner = js(owner(&owner_))?;
        let job_id = js(bounded_string(&job_id, "jobId"))?;
        let key = js(opt_string(&idempotency_key, "idempotencyKey"))?;
        answer(self.core.submit(now, &owner, &job_id, key.as_deref()))
    }

    /// `dispatch(now)`: moves queued jobs into free slots; returns the ids started.
    pub fn dispatch(&mut self, now: JsValue) -> JsResult<JsValue> {
        let now = js(json::uint(&now, "now"))?;
        to_js(&self.core.dispatch(now))
    }

    /// `complete(now, jobId, result)`: worker write (needs `processing`); a `WriteOutcome`.
    pub fn complete(
        &mut self,
        now: JsValue,
        job_id: JsValue,
        result: JsValue,
    ) -> JsResult<JsValue> {
        let now = js(json::uint(&now, "now"))?;
        let job_id = js(bounded_string(&job_id, "jobId"))?;
        let result: Value = js(from_js(&result, "result"))?;
        write_js(&self.core.complete(now, &job_id, result))
    }

    /// `fail(now, jobId, errorBody)`: worker write; a `WriteOutcome`.
    pub fn fail(&mut self, now: JsValue, job_id: JsValue, error: JsValue) -> JsResult<JsValue> {
        let now = js(json::uint(&now, "now"))?;
        let job_id = js(bounded_string(&job_id, "jobId"))?;
        let error: Value = js(from_js(&error, "error"))?;
        write_js(&self.core.fail(now, &job_id, error))
    }

    /// `expire(now, jobId)`: worker write; a `WriteOutcome`.
    pub fn expire(&mut self, now: JsValue, job_id: JsValue) -> JsResult<JsValue> {
        let now = js(json::uint(&now, "now"))?;
        let job_id = js(bounded_string(&job_id, "jobId"))?;
        write_js(&self.core.expire(now, &job_id))
    }

    /// `get(owner, jobId)`: `jobs_get`; `{ok, value}` or `{ok: false, error}` (404).
    pub fn get(&self, owner_: JsValue, job_id: JsValue) -> JsResult<JsValue> {
        let owner = js(owner(&owner_))?;
        let job_id = js(bounded_string(&job_id, "jobId"))?;
        answer(self.core.get(&owner, &job_id))
    }

    /// `list(owner)`: the caller's jobs, in submission order.
    pub fn list(&self, owner_: JsValue) -> JsResult<JsValue> {
        let owner = js(owner(&owner_))?;
        write_js(&self.core.list(&owner))
    }

    /// `cancel(now, owner, jobId, idempotencyKey?)`: `jobs_cancel`; `{ok, value: JobView}` or
    /// `{ok: false, error}` (409 `job_generation_already_started`, 409 `job_not_cancelable`,
    /// 404, 422).
    pub fn cancel(
        &mut self,
        now: JsValue,
        owner_: JsValue,
        job_id: JsValue,
        idempotency_key: JsValue,
    ) -> JsResult<JsValue> {
        let now = js(json::uint(&now, "now"))?;
        let owner = js(owner(&owner_))?;
        let job_id = js(bounded_string(&job_id, "jobId"))?;
        let key = js(opt_string(&idempotency_key, "idempotencyKey"))?;
        answer(self.core.cancel(now, &owner, &job_id, key.as_deref()))
    }

    /// `wait(now, owner, jobIds, waitFor, includeResults)`: `jobs_wait` snapshot;
    /// `{ok, value: {jobs, satisfied}}` or `{ok: false, error}` (400).
    pub fn wait(
        &self,
        now: JsValue,
        owner_: JsValue,
        job_ids: JsValue,
        wait_for: JsValue,
        include_results: JsValue,
    ) -> JsResult<JsValue> {
        let now = js(json::uint(&now, "now"))?;
        let owner = js(owner(&owner_))?;
        let ids: Vec<String> = js(from_js(&job_ids, "jobIds"))?;
        let wait_for: WaitFor = if wait_for.is_undefined() || wait_for.is_null() {
            WaitFor::All
        } else {
            js(from_js(&wait_for, "waitFor"))?
        };
        let include = match include_results.as_bool() {
            Some(b) => b,
            None if include_results.is_undefined() || include_results.is_null() => false,
            None => {
                return Err(crate::errors::to_js(&Error::invalid_input(
                    "includeResults",
                    &format!(
                        "expected a boolean, got {}",
                        args::describe(&include_results)
                    ),
                )))
            }
        };
        answer(self.core.wait(now, &owner, &ids, wait_for, include))
    }

    /// `snapshot()`: the versioned snapshot text.
    pub fn snapshot(&self) -> JsResult<String> {
        js(snapshot::save(&self.core))
    }

    /// `JobBook.restore(text)`: a book from a snapshot.
    pub fn restore(text: JsValue) -> JsResult<JobBook> {
        let text = js(bounded_string(&text, "snapshot"))?;
        Ok(JobBook {
            core: js(snapshot::restore(&text))?,
        })
    }
}
