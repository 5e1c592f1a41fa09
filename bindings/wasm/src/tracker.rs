//! The tracker as a JavaScript class (`Tracker`), with two ways in:
//!
//! * **Structured:** `handle(now, input)` / `timeout(now)` take the core's `Input` as a plain
//!   object and return every output of the step in one array (drained up to and including the
//!   closing `wake_at` or `idle`).
//! * **Numbers only** (`fast*` methods): status codes and times in, an output count out; the
//!   outputs are written as `[kind, a, b]` triples of numbers into a fixed buffer inside the
//!   module that JavaScript reads through one `Float64Array` over the module memory
//!   (`pkg/api.js`, `fastOutputs`). Nothing is thrown: bad input returns `-1` and sets
//!   `lastError`. Outputs that carry text (`ask_user`, `violation`, `send` of an update) also
//!   keep their full structured form, fetched with `fastDetail(i)`.
//!
//! Both paths drive the same core tracker, so they can be mixed freely on one instance.

#[allow(unused_imports)]
use crate::prelude::*;

use longcall::cancel::{CancelAnswer, JobErrorCode};
use longcall::outcome::{Outcome, Payload};
#[cfg(feature = "full")]
use longcall::snapshot;
#[cfg(feature = "full")]
use longcall::tracker::Input;
use longcall::tracker::{Output, Polled, Request, Tracker as Core};
use longcall::view::Ttl;
#[cfg(feature = "full")]
use longcall::view::{JobView, TaskView, ToolResult};
use longcall::Json;
use longcall::{Error, Model, Rule, Status};
use serde_json::Value;
use wasm_bindgen::prelude::*;

use crate::args;
use crate::errors::{js, JsResult};
use crate::json::{self, bounded_string};
use crate::tables::{at, code_of, JOB_ERROR_CODES, REQUEST_KINDS, STOP_REASONS};

/// How many outputs one numbers-only call writes at most; more stay queued (the last triple is
/// then not `wake_at`/`idle`: call `fastDrain()`).
pub const FAST_CAPACITY: usize = 64;

/// Output kind codes of the numbers-only path: positions in [`crate::tables::OUTPUT_KINDS`].
pub mod kind {
    /// `idle`.
    pub const IDLE: f64 = 0.0;
    /// `wake_at`, `a` = the time.
    pub const WAKE_AT: f64 = 1.0;
    /// `send`, `a` = request kind code (get, cancel, update, fetch_result), `b` = detail index
    /// (-1 for a poll: `{kind: "get", handle: id}`).
    pub const SEND: f64 = 2.0;
    /// `ask_user`, `a` = detail index.
    pub const ASK_USER: f64 = 3.0;
    /// `button`, `a` = button state code.
    pub const BUTTON: f64 = 4.0;
    /// `status`, `a` = status code.
    pub const STATUS: f64 = 5.0;
    /// `violation`, `a` = rule index, `b` = detail index.
    pub const VIOLATION: f64 = 6.0;
    /// `settled`, `a` = outcome code, `b` = status code or 255.
    pub const SETTLED: f64 = 7.0;
    /// `stopped`, `a` = stop reason code.
    pub const STOPPED: f64 = 8.0;
    /// The short structured way only (`flatInput`, `flatTimeout`): an output to fetch whole
    /// with `fastDetail(a)`.
    pub const DETAIL: f64 = 9.0;
}

/// `wasmMemory()`: the module's `WebAssembly.Memory` (for the numbers-only output buffers).
#[wasm_bindgen(js_name = wasmMemory)]
pub fn wasm_memory() -> JsValue {
    wasm_bindgen::memory()
}

/// One watched task or job.
#[wasm_bindgen]
pub struct Tracker {
    core: Core,
    fast: Box<[f64; 3 * FAST_CAPACITY]>,
    detail: Vec<Output>,
    last_error: &'static str,
    /// The poll handle the short structured way last wrote out in full (`pkg/structured.js`
    /// keeps it; a poll of the same handle is then written as numbers only).
    #[cfg(feature = "full")]
    sent_handle: Option<String>,
}

fn bad(field: &str) -> Error {
    Error::invalid_input(field, "not a valid code or time")
}

/// The numbers-only inputs that carry nothing but their time ([`Tracker::fast_signal`]).
#[derive(Clone, Copy)]
enum Signal {
    CancelPressed,
    UpdateAcked,
    StopWatching,
}

/// The time of a numbers-only input (checked after its other arguments).
fn fast_now(now: f64) -> Result<u64, Error> {
    json::num(now).ok_or_else(|| bad("now"))
}

fn opt_ms(n: f64) -> Result<Option<u64>, Error> {
    if n.is_nan() {
        return Ok(None);
    }
    json::num(n).map(Some).ok_or_else(|| bad("ms"))
}

#[wasm_bindgen]
impl Tracker {
    /// `new Tracker(model, config)`: a tracker whose handle is not known yet. `config` is the
    /// nine numbers `pkg/config.js` lays a configuration object out in ([`crate::config`]).
    #[wasm_bindgen(constructor)]
    pub fn new(model: JsValue, config: &[f64]) -> JsResult<Tracker> {
        let model = js(args::model(&model))?;
        let config = js(crate::config::tracker_config(config))?;
        Ok(Tracker::wrap(js(Core::new(model, config))?))
    }

    fn wrap(core: Core) -> Tracker {
        Tracker {
            core,
            fast: Box::new([0.0; 3 * FAST_CAPACITY]),
            detail: Vec::new(),
            last_error: "",
            #[cfg(feature = "full")]
            sent_handle: None,
        }
    }
}

/// The structured path, in the full build only: it reads the core's `Input` as JSON.
#[cfg(feature = "full")]
#[wasm_bindgen]
impl Tracker {
    /// `handleInput(now, input)`: something happened at `now` (ms); `input` in camelCase, as the
    /// wire spells it (`{type: 'task_polled', task: {taskId, status, pollIntervalMs}}`). Returns
    /// every output (camelCase), ending with `wake_at` (call `handleTimeout(at)` then, or earlier
    /// on input) or `idle`. Throws a coded error (and changes nothing) on a refused input; a key
    /// the input does not have is `malformed`, naming it.
    #[wasm_bindgen(js_name = handleInput)]
    pub fn handle_input(&mut self, now: JsValue, input: JsValue) -> JsResult<JsValue> {
        let now = js(json::uint(&now, "now"))?;
        let text = js(json::stringify(&input, "input"))?;
        let input: Input = js(crate::case::read(&text, "input").map_err(|e| with_hint(e, &text)))?;
        js(self.core.handle_input(now, input))?;
        self.drain_outputs()
    }

    /// `flatInput(now, type, id, statusCode, pollIntervalMs)`: [`Tracker::handle_input`] for
    /// the commonest inputs, taken apart by `pkg/structured.js` so that no JSON text is written
    /// or read: `{type}` alone (`cancel_pressed`, `update_acked`, `stop_watching`), `{type,
    /// task: {taskId, status, pollIntervalMs?, inputRequests?, result?}}` (`task_created`, `task_polled`,
    /// `task_notified`), `{type, job: {id, status}}` (`job_created`, `job_polled`) or `{type,
    /// key, response}` (`input_answered`: `id` is the key, `text` the response's JSON; for a
    /// task, `text` is its `inputRequests` as JSON or `undefined`, and `isError` (0, 1, NaN for
    /// no result) with `value` the JSON of its `result`); `type` by
    /// its position in `Tracker.flatTypes()`, the status by its code, the interval NaN for none,
    /// `id` undefined for the handle of the last poll written out in full. Returns -1, having
    /// changed nothing, for anything else (the caller then takes the general path, which reads
    /// or refuses it); otherwise the outputs as [`Tracker::flat_timeout`] writes them. The core
    /// input built is the one serde reads from the same object.
    #[wasm_bindgen(js_name = flatInput, skip_typescript)]
    // One argument per field is the point: no object or JSON text to read.
    #[allow(clippy::too_many_arguments)]
    pub fn flat_input(
        &mut self,
        now: f64,
        kind: f64,
        id: Option<String>,
        status: f64,
        interval_ms: f64,
        text: Option<String>,
        is_error: f64,
        value: Option<String>,
    ) -> JsResult<f64> {
        let result = (!is_error.is_nan()).then_some((is_error, value.as_deref()));
        // A time that is not one goes the general way, which refuses it.
        let Some(now) = json::num(now) else {
            return Ok(-1.0);
        };
        let id = id.as_deref();
        let Some(input) = self.flat(kind, id, status, interval_ms, text.as_deref(), result) else {
            return Ok(-1.0);
        };
        // The handle given (not the key of an answer) is the one `pkg/structured.js` now holds
        // for this tracker, as after a poll written out in full.
        let given = match &input {
            _ if id.is_none() => None,
            Input::TaskCreated { task }
            | Input::TaskPolled { task }
            | Input::TaskNotified { task } => Some(task.task_id.clone()),
            Input::JobCreated { job } | Input::JobPolled { job } => Some(job.id.clone()),
            _ => None,
        };
        js(self.core.handle_input(now, input))?;
        if given.is_some() {
            self.sent_handle = given;
        }
        Ok(f64::from(self.fill_structured()))
    }

    /// `flatCancelAnswered(now, kind, status, code, httpStatus, cancelable)`:
    /// [`Tracker::flat_input`] for `{type: 'cancel_answered', answer}`, the answer's fields
    /// taken apart by `pkg/structured.js`: `kind` as it is, `status` its code (-1 absent),
    /// `code` as it is (a number or a string; `undefined` absent), `httpStatus` NaN absent,
    /// `cancelable` 0 false, 1 true, 2 null, NaN absent. Returns -1, having changed nothing,
    /// unless the fields present are exactly those of the answer's kind with values serde reads
    /// the same way.
    #[wasm_bindgen(js_name = flatCancelAnswered, skip_typescript)]
    pub fn flat_cancel_answered(
        &mut self,
        now: f64,
        kind: JsValue,
        status: f64,
        code: JsValue,
        http_status: f64,
        cancelable: f64,
    ) -> JsResult<f64> {
        let Some(answer) = flat_answer(&kind, status, &code, http_status, cancelable) else {
            return Ok(-1.0);
        };
        let Some(now) = json::num(now) else {
            return Ok(-1.0);
        };
        js(self
            .core
            .handle_input(now, Input::CancelAnswered { answer }))?;
        Ok(f64::from(self.fill_structured()))
    }

    /// `Tracker.flatTypes()`: `[type, body]` of each input type `flatInput` takes, by code
    /// (body 0 none, 1 `task`, 2 `job`, 3 `key` and `response`, 4 `answer`).
    #[wasm_bindgen(js_name = flatTypes, skip_typescript)]
    pub fn flat_types() -> js_sys::Array {
        FLAT_TYPES
            .iter()
            .map(|(t, b)| js_sys::Array::of2(&JsValue::from_str(t), &JsValue::from(*b)))
            .collect()
    }

    /// `flatTimeout(now)`: [`Tracker::handle_timeout`] with the outputs written for
    /// `pkg/structured.js` to build the same objects from: triples in the numbers-only buffer,
    /// those that carry text (and a poll of a handle not written before) as kind
    /// [`kind::DETAIL`], `a` = the index for `fastDetail`, `b` its [`shape`] (the common ones
    /// are built from `flatDetail`; a `settled` without payload values
    /// as its numbers, as the numbers-only path writes it). Returns the count (when the buffer
    /// filled up, `drainOutputs()` gives the rest), or -1 for a time that is not one (the
    /// general `handleTimeout` refuses it).
    #[wasm_bindgen(js_name = flatTimeout, skip_typescript)]
    pub fn flat_timeout(&mut self, now: f64) -> f64 {
        match json::num(now) {
            Some(now) => {
                self.core.handle_timeout(now);
                f64::from(self.fill_structured())
            }
            // The general way refuses it.
            None => -1.0,
        }
    }

    /// `handleTimeout(now)`: time passed; returns every output (camelCase), usually a `send` of
    /// a poll, ending with `wake_at` or `idle`.
    #[wasm_bindgen(js_name = handleTimeout)]
    pub fn handle_timeout(&mut self, now: JsValue) -> JsResult<JsValue> {
        let now = js(json::uint(&now, "now"))?;
        self.core.handle_timeout(now);
        self.drain_outputs()
    }

    /// `drainOutputs()`: the outputs queued now, camelCase (after a refused input this is just
    /// the closing `wake_at`/`idle`).
    #[wasm_bindgen(js_name = drainOutputs)]
    pub fn drain_outputs(&mut self) -> JsResult<JsValue> {
        let mut text = String::from("[");
        loop {
            let out = self.core.poll_output();
            if text.len() > 1 {
                text.push(',');
            }
            output_json(&out, &mut text);
            if matches!(out, Output::WakeAt { .. } | Output::Idle) {
                break;
            }
        }
        text.push(']');
        js_sys::JSON::parse(&text)
    }

    /// `runRecord()`: the run record to show or store, camelCase.
    #[wasm_bindgen(js_name = runRecord)]
    pub fn run_record(&self) -> JsResult<JsValue> {
        crate::case::write_js(&self.core.record())
    }

    /// `snapshot()`: the versioned snapshot text (absolute deadlines).
    pub fn snapshot(&self) -> JsResult<String> {
        js(snapshot::save(&self.core))
    }

    /// `Tracker.restore(text)`: a tracker from a snapshot; it continues exactly.
    pub fn restore(text: JsValue) -> JsResult<Tracker> {
        let text = js(bounded_string(&text, "snapshot"))?;
        Ok(Tracker::wrap(js(snapshot::restore(&text))?))
    }
}

// The names the getters return are the core's static spellings, handed over as JavaScript
// strings made from them (no Rust `String` allocated, copied out and freed per read).
#[wasm_bindgen]
impl Tracker {
    /// The model, as its code (`MODELS` names it: the glue reads it so).
    #[wasm_bindgen(getter)]
    pub fn model(&self) -> u32 {
        self.core.model().code().into()
    }

    /// The task or job id, once known.
    #[wasm_bindgen(getter)]
    pub fn id(&self) -> JsValue {
        self.core
            .handle()
            .map_or(JsValue::UNDEFINED, JsValue::from_str)
    }

    /// The status held (the first terminal one, once seen), as its code (`STATUSES`); 255 for
    /// none.
    #[wasm_bindgen(getter)]
    pub fn status(&self) -> u32 {
        self.core.status().map_or(255, |s| s.code().into())
    }

    /// What the cancel button shows, as its code (`BUTTON_STATES`).
    #[wasm_bindgen(getter)]
    pub fn button(&self) -> u32 {
        self.core.button().code().into()
    }

    /// The verified outcome, once settled, as its code (`OUTCOMES`); 255 for none.
    #[wasm_bindgen(getter)]
    pub fn outcome(&self) -> u32 {
        self.core.outcome().map_or(255, |o| o.code().into())
    }

    /// True once settled or stopped.
    #[wasm_bindgen(getter, js_name = isDone)]
    pub fn is_done(&self) -> bool {
        self.core.is_done()
    }

    /// When `timeout` has work next (ms), if ever.
    #[wasm_bindgen(getter, js_name = pollTimeout)]
    pub fn poll_timeout(&self) -> Option<f64> {
        self.core.poll_timeout().map(|t| t as f64)
    }

    // --- numbers only ---------------------------------------------------------------------

    /// Index of this tracker's output buffer in a `Float64Array` over the module memory.
    #[wasm_bindgen(getter, js_name = fastOffset)]
    pub fn fast_offset(&self) -> u32 {
        (self.fast.as_ptr() as usize / 8) as u32
    }

    /// The error code of the last numbers-only call that returned -1 (`""` after a success).
    #[wasm_bindgen(getter, js_name = lastError)]
    pub fn last_error(&self) -> JsValue {
        JsValue::from_str(self.last_error)
    }

    /// `fastDetail(i)`: the structured form of an output the numbers-only path pointed to.
    #[wasm_bindgen(js_name = fastDetail)]
    pub fn fast_detail(&self, index: f64) -> JsResult<JsValue> {
        match args::code(index).and_then(|i| self.detail.get(usize::from(i))) {
            Some(o) => js_sys::JSON::parse(&detail_json(o)),
            None => Ok(JsValue::UNDEFINED),
        }
    }

    /// `flatDetail(i)`: the parts of an output `flatInput` or `flatTimeout` pointed to with a
    /// shape other than 0 (written beside its index), as JSON text for `pkg/structured.js` to
    /// build the output from; `[]` for any other.
    #[cfg(feature = "full")]
    #[wasm_bindgen(js_name = flatDetail, skip_typescript)]
    pub fn flat_detail(&self, index: f64) -> String {
        match args::code(index).and_then(|i| self.detail.get(usize::from(i))) {
            Some(o) => parts_json(o),
            None => String::from("[]"),
        }
    }

    /// `fastCreated(id, now, statusCode, pollIntervalMs)`: the creating answer (a task of the
    /// tracker's model, or a job) with its first status; `pollIntervalMs` NaN for none.
    #[wasm_bindgen(js_name = fastCreated)]
    pub fn fast_created(&mut self, id: JsValue, now: f64, status: f64, interval_ms: f64) -> i32 {
        let r = (|| {
            let id = bounded_string(&id, "id")?;
            let status = self.status_code(status)?;
            // Checked for every model, as `fastPolled` does; a job has no interval to keep.
            let interval_ms = opt_ms(interval_ms)?.filter(|_| self.core.model() != Model::Job);
            let now = fast_now(now)?;
            self.core.handle_created(now, &id, status, interval_ms)
        })();
        self.fast_done(r)
    }

    /// `fastPolled(now, statusCode, pollIntervalMs, payload)`: a poll answered. `payload`
    /// (tasks): 0 nothing, 1 a result, 2 a result with `isError: true`, 3 a JSON-RPC error.
    #[wasm_bindgen(js_name = fastPolled)]
    pub fn fast_polled(&mut self, now: f64, status: f64, interval_ms: f64, payload: f64) -> i32 {
        // The allocation-free core entry: no id to copy, no view to build.
        let r = (|| {
            let now = json::num(now).ok_or_else(|| bad("now"))?;
            let polled = Polled {
                status: self.status_code(status)?,
                poll_interval_ms: opt_ms(interval_ms)?,
                ttl_ms: Ttl::NotGiven,
                payload: payload_code(payload)?,
            };
            self.core.handle_polled(now, polled)
        })();
        // Written out, not `fast_done`: this is the hot path (no call per event).
        match r {
            Ok(()) => {
                self.last_error = "";
                self.fill()
            }
            Err(e) => self.fail(&e),
        }
    }

    /// `fastTimeout(now)`: the numbers-only [`Tracker::timeout`].
    #[wasm_bindgen(js_name = fastTimeout)]
    pub fn fast_timeout(&mut self, now: f64) -> i32 {
        match json::num(now) {
            Some(now) => {
                self.core.handle_timeout(now);
                self.last_error = "";
                self.fill()
            }
            None => self.fail(&bad("now")),
        }
    }

    /// `fastCancelPressed(now)`: the user pressed cancel (-1 with `lastError`
    /// `"cancel_refused"` when the button does not allow it).
    #[wasm_bindgen(js_name = fastCancelPressed)]
    pub fn fast_cancel_pressed(&mut self, now: f64) -> i32 {
        self.fast_signal(now, Signal::CancelPressed)
    }

    /// `fastCancelAnswered(now, kind, a, b)`: the cancel request was answered. `kind`: 0 ack
    /// (2026), 1 task (a = status code), 2 JSON-RPC error (a = code), 3 job (a = status code),
    /// 4 job error (a = HTTP status, b = 0 job_generation_already_started, 1
    /// job_not_cancelable, 2 not_found, 3 rate_limit_exceeded, 4 other), 5 no answer.
    #[wasm_bindgen(js_name = fastCancelAnswered)]
    pub fn fast_cancel_answered(&mut self, now: f64, kind: f64, a: f64, b: f64) -> i32 {
        let r = (|| {
            let status = |c: f64| Status::from_code(args::code(c)?);
            let answer = match args::code(kind) {
                Some(0) => CancelAnswer::Ack,
                Some(1) => CancelAnswer::Task {
                    status: status(a).ok_or_else(|| bad("a"))?.expect_task()?,
                },
                Some(2) if a.abs() <= json::MAX_SAFE && a as i64 as f64 == a => {
                    CancelAnswer::RpcError { code: a as i64 }
                }
                Some(3) => CancelAnswer::Job {
                    status: status(a).ok_or_else(|| bad("a"))?.expect_job()?,
                },
                Some(4) => CancelAnswer::JobError {
                    http_status: json::num(a)
                        .and_then(|n| u16::try_from(n).ok())
                        .ok_or_else(|| bad("a"))?,
                    code: at(&JOB_ERROR_CODES, b).ok_or_else(|| bad("b"))?,
                    cancelable: None,
                },
                Some(5) => CancelAnswer::NoAnswer,
                _ => return Err(bad("kind")),
            };
            self.core.handle_cancel_answered(fast_now(now)?, answer)
        })();
        self.fast_done(r)
    }

    /// `fastJobCancelAnswered(now, httpStatus, statusOrCode)`: a Sume `jobs_cancel` answer as
    /// read off the HTTP response: 2xx with the job's status, or the error status with the
    /// envelope's `error.code` (a code longcall does not know, or none, as a 502 HTML page has,
    /// reads as `other`).
    #[wasm_bindgen(js_name = fastJobCancelAnswered)]
    pub fn fast_job_cancel_answered(
        &mut self,
        now: f64,
        http_status: f64,
        status_or_code: JsValue,
    ) -> i32 {
        let r = crate::tables::job_cancel_answer(http_status, &status_or_code)
            .and_then(|answer| self.core.handle_cancel_answered(fast_now(now)?, answer));
        self.fast_done(r)
    }

    /// `fastUpdateAcked(now)`: `tasks/update` was acknowledged.
    #[wasm_bindgen(js_name = fastUpdateAcked)]
    pub fn fast_update_acked(&mut self, now: f64) -> i32 {
        self.fast_signal(now, Signal::UpdateAcked)
    }

    /// `fastRequestFailed(now, requestKind, httpStatus, retryAfterMs, errorCode)`: a request
    /// failed; `httpStatus` 0 is a transport failure; `retryAfterMs` NaN for none; `errorCode`
    /// the envelope's `error.code` as a `JOB_ERROR_CODES` index (`jobErrorCode`), NaN or left
    /// out when the body had none. A job is lost only on a 404 whose code is `not_found` (O-6).
    #[wasm_bindgen(js_name = fastRequestFailed)]
    pub fn fast_request_failed(
        &mut self,
        now: f64,
        request: f64,
        http: f64,
        retry: f64,
        code: f64,
    ) -> i32 {
        let r = (|| {
            let request = at(&REQUEST_KINDS, request).ok_or_else(|| bad("request"))?;
            let (http, retry) = match json::num(http).and_then(|n| u16::try_from(n).ok()) {
                Some(0) => (None, None),
                Some(status) => (Some(status), opt_ms(retry)?),
                None => return Err(bad("httpStatus")),
            };
            let code = if code.is_nan() {
                JobErrorCode::None
            } else {
                at(&JOB_ERROR_CODES, code).ok_or_else(|| bad("errorCode"))?
            };
            self.core
                .handle_request_failed_http(fast_now(now)?, request, http, code, retry)
        })();
        self.fast_done(r)
    }

    /// `fastStop(now)`: the host stops watching.
    #[wasm_bindgen(js_name = fastStop)]
    pub fn fast_stop(&mut self, now: f64) -> i32 {
        self.fast_signal(now, Signal::StopWatching)
    }

    /// `fastDrain()`: writes the outputs still queued (after a call that filled the buffer).
    #[wasm_bindgen(js_name = fastDrain)]
    pub fn fast_drain(&mut self) -> i32 {
        self.fill()
    }
}

impl Tracker {
    fn status_code(&self, code: f64) -> Result<Status, Error> {
        let s = Status::from_code(args::code(code).ok_or_else(|| bad("status"))?)
            .ok_or_else(|| bad("status"))?;
        s.expect_in(self.core.model())
    }

    fn fail(&mut self, e: &Error) -> i32 {
        self.last_error = e.code();
        -1
    }

    /// A numbers-only input that carries nothing but its time: one body for the three.
    #[inline(never)]
    fn fast_signal(&mut self, now: f64, signal: Signal) -> i32 {
        let r = fast_now(now).and_then(|_| match signal {
            Signal::CancelPressed => self.core.handle_cancel_pressed(),
            Signal::UpdateAcked => self.core.handle_update_acked(),
            Signal::StopWatching => {
                self.core.handle_stop_watching();
                Ok(())
            }
        });
        self.fast_done(r)
    }

    /// The end of a numbers-only call: the outputs, or -1 with `lastError`.
    fn fast_done(&mut self, r: Result<(), Error>) -> i32 {
        match r {
            Ok(()) => {
                self.last_error = "";
                self.fill()
            }
            Err(e) => self.fail(&e),
        }
    }

    /// Drains into the buffer; returns the number of triples written.
    fn fill(&mut self) -> i32 {
        self.detail.clear();
        let mut n = 0;
        for slot in self.fast.chunks_exact_mut(3) {
            let out = self.core.poll_output();
            let last = matches!(out, Output::WakeAt { .. } | Output::Idle);
            let (k, a, b) = match &out {
                Output::Idle => (kind::IDLE, 0.0, 0.0),
                Output::WakeAt { at } => (kind::WAKE_AT, *at as f64, 0.0),
                Output::Send { request } => {
                    let d = if !matches!(request, Request::Get { .. }) {
                        self.detail.len() as f64
                    } else {
                        -1.0
                    };
                    (kind::SEND, code_of(&REQUEST_KINDS, &request.kind()), d)
                }
                Output::AskUser { .. } => (kind::ASK_USER, self.detail.len() as f64, 0.0),
                Output::Button { state } => (kind::BUTTON, f64::from(state.code()), 0.0),
                Output::Status { status } => (kind::STATUS, f64::from(status.code()), 0.0),
                Output::Violation { violation } => (
                    kind::VIOLATION,
                    rule_index(violation.rule),
                    self.detail.len() as f64,
                ),
                Output::Settled {
                    outcome, status, ..
                } => (
                    kind::SETTLED,
                    f64::from(Outcome::code(*outcome)),
                    status.map_or(f64::from(args::BAD), |s| f64::from(s.code())),
                ),
                Output::Stopped { reason } => (kind::STOPPED, code_of(&STOP_REASONS, reason), 0.0),
            };
            if matches!(
                out,
                Output::AskUser { .. }
                    | Output::Violation { .. }
                    | Output::Send {
                        request: Request::Cancel { .. }
                            | Request::Update { .. }
                            | Request::FetchResult { .. }
                    }
            ) {
                self.detail.push(out);
            }
            slot.copy_from_slice(&[k, a, b]);
            n += 1;
            if last {
                break;
            }
        }
        n
    }
}

#[cfg(feature = "full")]
impl Tracker {
    /// Drains into the buffer for `pkg/structured.js`; returns the number of triples written.
    fn fill_structured(&mut self) -> i32 {
        self.detail.clear();
        let mut n = 0;
        for slot in self.fast.chunks_exact_mut(3) {
            let out = self.core.poll_output();
            let last = matches!(out, Output::WakeAt { .. } | Output::Idle);
            let triple = match &out {
                Output::Idle => Some((kind::IDLE, 0.0, 0.0)),
                Output::WakeAt { at } => Some((kind::WAKE_AT, *at as f64, 0.0)),
                Output::Button { state } => Some((kind::BUTTON, f64::from(state.code()), 0.0)),
                Output::Status { status } => Some((kind::STATUS, f64::from(status.code()), 0.0)),
                Output::Settled {
                    outcome,
                    status,
                    result: None,
                    error: None,
                } => Some((
                    kind::SETTLED,
                    f64::from(Outcome::code(*outcome)),
                    status.map_or(f64::from(args::BAD), |s| f64::from(s.code())),
                )),
                #[cfg(feature = "full")]
                Output::Stopped { reason } => {
                    Some((kind::STOPPED, code_of(&STOP_REASONS, reason), 0.0))
                }
                Output::Send {
                    request: Request::Get { handle },
                } if self.sent_handle.as_ref() == Some(handle) => Some((kind::SEND, 0.0, -1.0)),
                _ => None,
            };
            let (k, a, b) = triple.unwrap_or_else(|| {
                if let Output::Send {
                    request: Request::Get { handle },
                } = &out
                {
                    self.sent_handle = Some(handle.clone());
                }
                let i = self.detail.len() as f64;
                let shape = shape_of(&out);
                self.detail.push(out);
                (kind::DETAIL, i, shape)
            });
            slot.copy_from_slice(&[k, a, b]);
            n += 1;
            if last {
                break;
            }
        }
        n
    }
}

/// The JSON of an output the numbers-only path points to (`ask_user`, `violation`, non-poll
/// `send`).
fn detail_json(o: &Output) -> String {
    let mut out = String::new();
    output_json(o, &mut out);
    out
}

/// Appends the JSON of one output, written by hand: exactly what serde writes for [`Output`]
/// with the keys in camelCase (`crate::case::write`; a test checks every variant), without
/// linking the derived serializers into the small build and without building a `Value` tree on
/// the structured path. Only the JSON values inside (input requests and answers, payloads) go
/// through serde_json, in the full build: the small build takes no input that carries one (no
/// input requests, no answers, no payloads), so no output it points to has any, and it links
/// no JSON writer at all.
fn output_json(o: &Output, out: &mut String) {
    let s = json_string;
    #[cfg(feature = "full")]
    let v = json_value;
    #[cfg(not(feature = "full"))]
    let v = |out: &mut String, _: &Value| out.push_str("null");
    let pairs = |out: &mut String, list: &[(String, Json)]| json_pairs(out, list, v);
    match o {
        Output::AskUser { key, request, call } => {
            out.push_str(r#"{"type":"ask_user","key":"#);
            s(out, key);
            out.push_str(r#","request":"#);
            v(out, request);
            if *call {
                out.push_str(r#","call":true"#);
            }
            out.push('}');
        }
        Output::Violation { violation } => {
            out.push_str(r#"{"type":"violation","violation":{"rule":""#);
            out.push_str(violation.rule.code());
            out.push_str(r#"","level":""#);
            out.push_str(violation.level.as_str());
            out.push_str(r#"","detail":"#);
            s(out, &violation.detail);
            out.push_str("}}");
        }
        Output::Send { request } => {
            out.push_str(r#"{"type":"send","request":{"kind":""#);
            out.push_str(match request {
                Request::Get { .. } => "get",
                Request::Cancel { .. } => "cancel",
                Request::Update { .. } => "update",
                Request::FetchResult { .. } => "fetch_result",
                Request::ContinueCall { .. } => "continue_call",
            });
            out.push('"');
            match request {
                Request::Get { handle } | Request::FetchResult { handle } => {
                    out.push_str(r#","handle":"#);
                    s(out, handle);
                }
                Request::Cancel {
                    handle,
                    idempotency_key,
                } => {
                    out.push_str(r#","handle":"#);
                    s(out, handle);
                    if let Some(k) = idempotency_key {
                        out.push_str(r#","idempotencyKey":"#);
                        s(out, k);
                    }
                }
                Request::ContinueCall {
                    responses,
                    request_state,
                } => {
                    out.push_str(r#","responses":"#);
                    pairs(out, responses);
                    if let Some(st) = request_state {
                        out.push_str(r#","requestState":"#);
                        v(out, st);
                    }
                }
                Request::Update { handle, responses } => {
                    out.push_str(r#","handle":"#);
                    s(out, handle);
                    out.push_str(r#","responses":"#);
                    pairs(out, responses);
                }
            }
            out.push_str("}}");
        }
        #[cfg(feature = "full")]
        Output::Button { state } => {
            out.push_str(r#"{"type":"button","state":""#);
            out.push_str(state.as_str());
            out.push_str(r#""}"#);
        }
        #[cfg(feature = "full")]
        Output::Status { status } => {
            out.push_str(r#"{"type":"status","status":""#);
            out.push_str(status.as_str());
            out.push_str(r#""}"#);
        }
        #[cfg(feature = "full")]
        Output::Settled {
            outcome,
            status,
            result,
            error,
        } => {
            out.push_str(r#"{"type":"settled","outcome":""#);
            out.push_str(outcome.as_str());
            out.push_str(r#"","status":"#);
            match status {
                Some(st) => {
                    out.push('"');
                    out.push_str(st.as_str());
                    out.push('"');
                }
                None => out.push_str("null"),
            }
            if let Some(r) = result {
                out.push_str(r#","result":"#);
                v(out, r);
            }
            if let Some(e) = error {
                out.push_str(r#","error":"#);
                v(out, e);
            }
            out.push('}');
        }
        #[cfg(feature = "full")]
        Output::Stopped { reason } => {
            out.push_str(r#"{"type":"stopped","reason":"#);
            out.push_str(&serde_json::to_string(reason).unwrap_or_else(|_| String::from("null")));
            out.push('}');
        }
        #[cfg(feature = "full")]
        Output::WakeAt { at } => {
            use core::fmt::Write;
            // A u64 is written as digits (no float formatting linked in).
            let _ = write!(out, r#"{{"type":"wake_at","at":{at}}}"#);
        }
        #[cfg(feature = "full")]
        Output::Idle => out.push_str(r#"{"type":"idle"}"#),
        // The small build writes only the outputs the numbers-only path points to.
        #[cfg(not(feature = "full"))]
        _ => out.push_str("null"),
    }
}

/// Appends `text` as a JSON string, escaped exactly as serde_json escapes it (`\"`, `\\`, the
/// short escapes of `\b \f \n \r \t`, `\u00xx` for the other control characters, the rest
/// as it is).
/// Appends a JSON value as serde_json writes it.
#[cfg(feature = "full")]
fn json_value(out: &mut String, v: &Value) {
    out.push_str(&serde_json::to_string(v).unwrap_or_else(|_| String::from("null")));
}

/// Appends `[[key, value], ...]`, each value written by `v`.
fn json_pairs(out: &mut String, list: &[(String, Json)], v: impl Fn(&mut String, &Value)) {
    out.push('[');
    for (i, (k, r)) in list.iter().enumerate() {
        out.push_str(if i == 0 { "[" } else { ",[" });
        json_string(out, k);
        out.push(',');
        v(out, r.as_value());
        out.push(']');
    }
    out.push(']');
}

/// The outputs `pkg/structured.js` builds from their parts (`flatDetail`) instead of parsing
/// them whole (JSON.parse costs by the object and key, and these carry payload values), by the
/// code written beside their index; [`shape::WHOLE`] for any other (`fastDetail`).
#[cfg(feature = "full")]
mod shape {
    /// Fetched whole.
    pub const WHOLE: f64 = 0.0;
    /// `ask_user`: `[key, request, call]`.
    pub const ASK_USER: f64 = 1.0;
    /// `send` of an update: `[handle, responses]`.
    pub const UPDATE: f64 = 2.0;
    /// `settled`: `[outcome, status, hasResult, result, hasError, error]`.
    pub const SETTLED: f64 = 3.0;
    /// `send` of a cancel: `[handle, idempotencyKey or null]`.
    pub const CANCEL: f64 = 4.0;
}

/// The [`shape`] of an output fetched in detail.
#[cfg(feature = "full")]
fn shape_of(o: &Output) -> f64 {
    match o {
        Output::AskUser { .. } => shape::ASK_USER,
        Output::Send {
            request: Request::Update { .. },
        } => shape::UPDATE,
        Output::Settled { .. } => shape::SETTLED,
        Output::Send {
            request: Request::Cancel { .. },
        } => shape::CANCEL,
        _ => shape::WHOLE,
    }
}

/// The parts of an output of a [`shape`] other than [`shape::WHOLE`], as a JSON array.
#[cfg(feature = "full")]
fn parts_json(o: &Output) -> String {
    let mut out = String::from("[");
    let opt_value = |out: &mut String, v: &Option<Json>| match v {
        Some(v) => {
            out.push_str("true,");
            json_value(out, v);
        }
        None => out.push_str("false,null"),
    };
    match o {
        Output::AskUser { key, request, call } => {
            json_string(&mut out, key);
            out.push(',');
            json_value(&mut out, request);
            out.push_str(if *call { ",true" } else { ",false" });
        }
        Output::Send {
            request: Request::Update { handle, responses },
        } => {
            json_string(&mut out, handle);
            out.push(',');
            json_pairs(&mut out, responses, json_value);
        }
        Output::Settled {
            outcome,
            status,
            result,
            error,
        } => {
            out.push('"');
            out.push_str(outcome.as_str());
            out.push_str("\",");
            match status {
                Some(st) => {
                    out.push('"');
                    out.push_str(st.as_str());
                    out.push_str("\",");
                }
                None => out.push_str("null,"),
            }
            opt_value(&mut out, result);
            out.push(',');
            opt_value(&mut out, error);
        }
        Output::Send {
            request:
                Request::Cancel {
                    handle,
                    idempotency_key,
                },
        } => {
            json_string(&mut out, handle);
            out.push(',');
            match idempotency_key {
                Some(k) => json_string(&mut out, k),
                None => out.push_str("null"),
            }
        }
        _ => {}
    }
    out.push(']');
    out
}

fn json_string(out: &mut String, text: &str) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if c < ' ' => {
                let digit = |n: u32| char::from_digit(n, 16).unwrap_or('0');
                out.push_str("\\u00");
                out.push(digit(u32::from(c) >> 4));
                out.push(digit(u32::from(c) & 15));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// The input types [`Tracker::flat_input`] takes, by code (their position), with the body each
/// has: 0 none, 1 `task`, 2 `job`, 3 `key` and `response`, 4 `answer` (which only
/// [`Tracker::flat_cancel_answered`] takes).
#[cfg(feature = "full")]
const FLAT_TYPES: [(&str, u8); 10] = [
    ("cancel_pressed", 0),
    ("update_acked", 0),
    ("stop_watching", 0),
    ("task_created", 1),
    ("task_polled", 1),
    ("task_notified", 1),
    ("job_created", 2),
    ("job_polled", 2),
    ("input_answered", 3),
    ("cancel_answered", 4),
];

#[cfg(feature = "full")]
impl Tracker {
    /// The input [`Tracker::flat_input`] was given, exactly as serde reads its JSON; `None` for
    /// anything that is not one of the flat shapes. An `id` of `undefined` is the handle last
    /// written out in full (`sent_handle`).
    fn flat(
        &self,
        kind: f64,
        id: Option<&str>,
        status: f64,
        interval: f64,
        text: Option<&str>,
        result: Option<(f64, Option<&str>)>,
    ) -> Option<Input> {
        let (_, body) = FLAT_TYPES.get(usize::from(args::code(kind)?))?;
        let kind = args::code(kind)?;
        let handle = || match id {
            None => self.sent_handle.clone(),
            Some(id) => Some(id.into()),
        };
        let status = || Status::ALL.get(usize::from(args::code(status)?)).copied();
        if result.is_some() && *body != 1 {
            return None;
        }
        Some(match (body, kind) {
            (0, 0) => Input::CancelPressed,
            (0, 1) => Input::UpdateAcked,
            (0, _) => Input::StopWatching,
            (3, _) => {
                // One level down in the whole input.
                let [response]: [Value; 1] = nested(text?, 1)?;
                Input::InputAnswered {
                    key: id?.into(),
                    response: response.into(),
                }
            }
            (1, _) => {
                let task = TaskView {
                    task_id: handle()?,
                    status: status()?,
                    status_message: None,
                    created_at_ms: None,
                    last_updated_at_ms: None,
                    ttl_ms: Ttl::NotGiven,
                    poll_interval_ms: if interval.is_nan() {
                        None
                    } else {
                        Some(json::num(interval)?)
                    },
                    input_requests: match text {
                        None => Vec::new(),
                        Some(text) => input_requests(text)?,
                    },
                    result: match result {
                        None => None,
                        Some((is_error, value)) => Some(ToolResult {
                            is_error: match args::code(is_error)? {
                                0 => false,
                                1 => true,
                                _ => return None,
                            },
                            // Three levels down in the whole input.
                            value: nested::<[Value; 1]>(value?, 3)?.into_iter().next()?.into(),
                        }),
                    },
                    error: None,
                };
                match kind {
                    3 => Input::TaskCreated { task },
                    4 => Input::TaskPolled { task },
                    _ => Input::TaskNotified { task },
                }
            }
            (2, _) => {
                let job = JobView {
                    id: handle()?,
                    status: status()?,
                    result: None,
                    error: None,
                };
                match kind {
                    6 => Input::JobCreated { job },
                    _ => Input::JobPolled { job },
                }
            }
            _ => return None,
        })
    }
}

/// An input without its `type` that is something else a caller has at hand: the refusal says
/// which reader turns it into an input.
#[cfg(feature = "full")]
fn with_hint(e: longcall::Error, text: &str) -> longcall::Error {
    let longcall::Error::Malformed { what, reason } = e else {
        return e;
    };
    // The byte reader every JSON text in the module goes through (see `json::parse`).
    let given: Value = serde_json::from_slice(text.as_bytes()).unwrap_or(Value::Null);
    let has = |k: &str| given.get(k).is_some();
    let hint = if !reason.ends_with("missing field `type`") || has("type") {
        ""
    } else if has("input") && has("violations") {
        "; this is what readResult/readAnswer return: pass its .input"
    } else if has("jsonrpc") {
        "; a JSON-RPC message is read by readAnswer(model, asked, message) or an Endpoint, \
         whose .input this takes"
    } else if has("taskId") || has("task") || (has("id") && has("status")) {
        "; a task or job as the server sent it is read by readResult(model, asked, result) or \
         an Endpoint, whose .input this takes"
    } else {
        ""
    };
    longcall::Error::Malformed {
        what,
        reason: reason + hint,
    }
}

/// JSON text read as a value `depth` arrays down, so that the JSON reader's depth limit counts
/// it where it sits in the whole input; `None` for anything serde would not read.
#[cfg(feature = "full")]
fn nested<T: serde::de::DeserializeOwned>(text: &str, depth: usize) -> Option<T> {
    // `pkg/structured.js` sends at most 2^20 UTF-16 units; anything longer goes the general way.
    if text.len() > 3 << 20 {
        return None;
    }
    let mut wrapped = String::with_capacity(text.len() + 2 * depth);
    for _ in 1..depth {
        wrapped.push('[');
    }
    wrapped.push('[');
    wrapped.push_str(text);
    wrapped.push(']');
    for _ in 1..depth {
        wrapped.push(']');
    }
    // Read straight into `T` (the innermost array is its own), not through a `Value` tree
    // converted afterwards: the same reader and depth count, half the allocations.
    match depth {
        1 => serde_json::from_slice(wrapped.as_bytes()).ok(),
        2 => serde_json::from_slice(wrapped.as_bytes())
            .ok()
            .map(|[t]: [T; 1]| t),
        3 => serde_json::from_slice(wrapped.as_bytes())
            .ok()
            .map(|[[t]]: [[T; 1]; 1]| t),
        _ => None,
    }
}

/// A task's `inputRequests` (two levels down in the whole input), as serde reads them; an empty
/// list is for the general path (which refuses it: the core writes none back).
#[cfg(feature = "full")]
fn input_requests(text: &str) -> Option<Vec<longcall::view::InputRequest>> {
    let [list]: [Vec<longcall::view::InputRequest>; 1] = nested(text, 2)?;
    (!list.is_empty()).then_some(list)
}

/// The cancel answer [`Tracker::flat_cancel_answered`] was given, exactly as serde reads it;
/// `None` for anything else.
#[cfg(feature = "full")]
fn flat_answer(
    kind: &JsValue,
    status: f64,
    code: &JsValue,
    http: f64,
    cancelable: f64,
) -> Option<CancelAnswer> {
    let kind = args::name(kind)?;
    let no_status = status < 0.0;
    let bare = code.is_undefined() && http.is_nan() && cancelable.is_nan();
    let status = || Status::ALL.get(usize::from(args::code(status)?)).copied();
    Some(match kind.as_str() {
        "ack" if no_status && bare => CancelAnswer::Ack,
        "no_answer" if no_status && bare => CancelAnswer::NoAnswer,
        "task" if bare => CancelAnswer::Task {
            status: status()?.task()?,
        },
        "job" if bare => CancelAnswer::Job {
            status: status()?.job()?,
        },
        "rpc_error" if no_status && http.is_nan() && cancelable.is_nan() => {
            let n = code.as_f64()?;
            (n.fract() == 0.0 && n.abs() <= json::MAX_SAFE).then_some(())?;
            CancelAnswer::RpcError { code: n as i64 }
        }
        "job_error" if no_status => CancelAnswer::JobError {
            http_status: json::num(http).and_then(|n| u16::try_from(n).ok())?,
            code: serde_json::from_value(Value::String(args::name(code)?)).ok()?,
            cancelable: match args::code(if cancelable.is_nan() { 2.0 } else { cancelable })? {
                0 => Some(false),
                1 => Some(true),
                2 => None,
                _ => return None,
            },
        },
        _ => return None,
    })
}

fn rule_index(rule: Rule) -> f64 {
    Rule::ALL
        .iter()
        .position(|r| *r == rule)
        .map_or(f64::from(args::BAD), |i| i as f64)
}

fn payload_code(code: f64) -> Result<Payload, Error> {
    Ok(match args::code(code) {
        Some(0) => Payload::NONE,
        Some(1) => Payload::OK,
        Some(2) => Payload::TOOL_ERROR,
        Some(3) => Payload::ERROR,
        _ => return Err(bad("payload")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use longcall::violation::Violation;
    use serde_json::json;

    #[test]
    fn json_strings_are_escaped_as_serde_does() {
        let mut every: String = (0..0x80).filter_map(char::from_u32).collect();
        every.push_str("é\u{2028}\u{1f600}");
        for text in [every.as_str(), "", "plain", "q\"uo\\te"] {
            let mut hand = String::new();
            json_string(&mut hand, text);
            assert_eq!(hand, serde_json::to_string(text).unwrap(), "{text:?}");
        }
    }

    /// The hand-written detail JSON is exactly the camelCase structured output, for every output
    /// the fast path points to.
    #[cfg(feature = "full")]
    #[test]
    fn output_json_matches_serde() {
        let tricky = "q\"uo\\te\n\u{1}é";
        let outputs = [
            Output::AskUser {
                key: tricky.into(),
                request: json!({"method": "elicitation/create", "n": 1.5, "a": [null, true]})
                    .into(),
                call: false,
            },
            Output::AskUser {
                key: tricky.into(),
                request: json!({"method": "elicitation/create"}).into(),
                call: true,
            },
            Output::Send {
                request: Request::ContinueCall {
                    responses: vec![(tricky.into(), json!({"action": "accept"}).into())],
                    request_state: Some(json!({"s": tricky}).into()),
                },
            },
            Output::Violation {
                violation: Violation::new(Rule::InputKeyReused, tricky),
            },
            Output::Send {
                request: Request::Cancel {
                    handle: tricky.into(),
                    idempotency_key: Some("k:cancel".into()),
                },
            },
            Output::Send {
                request: Request::Cancel {
                    handle: "t".into(),
                    idempotency_key: None,
                },
            },
            Output::Send {
                request: Request::FetchResult { handle: "t".into() },
            },
            Output::Send {
                request: Request::Get { handle: "t".into() },
            },
            Output::Send {
                request: Request::Update {
                    handle: "t".into(),
                    responses: vec![
                        ("k1".into(), json!({"action": "accept"}).into()),
                        (tricky.into(), json!(null).into()),
                    ],
                },
            },
            Output::Send {
                request: Request::Update {
                    handle: "t".into(),
                    responses: vec![],
                },
            },
        ];
        let outputs = outputs.into_iter().chain([
            Output::Button {
                state: longcall::cancel::ButtonState::TooLate,
            },
            Output::Status {
                status: Status::InputRequired,
            },
            Output::Settled {
                outcome: Outcome::ToolError,
                status: Some(Status::Completed),
                result: Some(
                    json!({"isError": false, "structured_content": {"a_b": tricky}}).into(),
                ),
                error: None,
            },
            Output::Settled {
                outcome: Outcome::Failed,
                status: None,
                result: None,
                error: Some(json!({"code": -32603, "message": tricky, "data": {"x_y": 1}}).into()),
            },
            Output::Stopped {
                reason: longcall::tracker::StopReason::CreateUnanswered,
            },
            Output::WakeAt {
                at: json::MAX_SAFE as u64,
            },
            Output::Idle,
        ]);
        for o in outputs {
            let hand: Value = serde_json::from_str(&detail_json(&o)).unwrap();
            let want: Value = serde_json::from_str(&crate::case::write(&o).unwrap()).unwrap();
            assert_eq!(hand, want, "{o:?}");
        }
    }
}
