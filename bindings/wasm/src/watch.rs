//! The watch list as a JavaScript class (`WatchList`): many calls, one output stream, one next
//! wake, and the store order of `longcall::watch` (outputs wait behind `persist` until the host
//! confirms the record with `persisted(call, version)`).
//!
//! Call ids are JavaScript numbers from 0 to `Number.MAX_SAFE_INTEGER`. Outputs are the core's
//! `WatchOutput` as plain objects (`{type: "persist", call}`, `{type: "create", call, intent,
//! resend}`, `{type: "call", call, output}`, ...). Keys are camelCase, like the rest of the
//! package (`idempotencyKey`, `nextWakeAt`, `maxCreateResends`); a key the core's type does not
//! have is refused by name. The caller's own JSON (an intent's request, a prompt) is carried as
//! it is.
//!
//! `readJobAnswer(answer, now)` reads a Sume Open API answer into the input a watch list takes,
//! for a host that moves the list's requests itself.

use longcall::snapshot;
use longcall::tracker::Input;
use longcall::watch::{CallId, Intent, WatchConfig, WatchList as Core};
use longcall::wire::sume_open::{answer_input, OpenAnswer};
use longcall::Error;
use serde::Serialize;
use serde_json::Value;
use wasm_bindgen::prelude::*;

use crate::args;
use crate::case::{read_js, write_js};
use crate::errors::{js, JsResult};
use crate::json::{self, bounded_string, to_js};

/// A call's record as a store writes it (`saveCall`).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Saved<'a> {
    call: u64,
    version: u64,
    model: &'a str,
    next_wake_at: Option<u64>,
    done: bool,
    text: &'a str,
}

fn call(value: &JsValue) -> Result<CallId, longcall::Error> {
    json::uint(value, "call").map(CallId)
}

/// Many watched calls.
#[wasm_bindgen]
pub struct WatchList {
    core: Core,
}

#[wasm_bindgen]
impl WatchList {
    /// `new WatchList(config?)`: `config` is `{durable?, maxCreateResends?}`.
    #[wasm_bindgen(constructor)]
    pub fn new(config: JsValue) -> JsResult<WatchList> {
        let config: WatchConfig = if config.is_undefined() || config.is_null() {
            WatchConfig::default()
        } else {
            js(read_js(&config, "config"))?
        };
        Ok(WatchList {
            core: Core::new(config),
        })
    }

    /// `WatchList.restore(text)`: a whole list from `snapshot()`; it continues exactly.
    pub fn restore(text: JsValue) -> JsResult<WatchList> {
        let text = js(bounded_string(&text, "snapshot"))?;
        Ok(WatchList {
            core: js(snapshot::restore(&text))?,
        })
    }

    /// `WatchList.leaseMarginMs(leaseMs)`: how long before a lease of `leaseMs` ends its
    /// holder stops acting (rule R-10); a fenced store refuses writes made later.
    #[wasm_bindgen(js_name = leaseMarginMs)]
    pub fn lease_margin_ms(lease_ms: JsValue) -> JsResult<f64> {
        let lease_ms = js(json::uint(&lease_ms, "leaseMs"))?;
        Ok(longcall::watch::lease_margin_ms(lease_ms) as f64)
    }

    /// `snapshot()`: the whole list as versioned text.
    pub fn snapshot(&self) -> JsResult<String> {
        js(snapshot::save(&self.core))
    }

    /// How many calls the list holds.
    #[wasm_bindgen(getter)]
    pub fn size(&self) -> u32 {
        u32::try_from(self.core.len()).unwrap_or(u32::MAX)
    }

    /// `addNew(call, intent, config?)`: a call about to be created; `create` follows its record.
    #[wasm_bindgen(js_name = addNew)]
    pub fn add_new(&mut self, call_id: JsValue, intent: JsValue, config: &[f64]) -> JsResult<()> {
        let id = js(call(&call_id))?;
        let intent: Intent = js(read_js(&intent, "intent"))?;
        let config = js(crate::config::tracker_config(config))?;
        js(self.core.add_new(id, intent, config))
    }

    /// `addHandle(now, call, model, handle, config?)`: watches a handle persisted earlier.
    #[wasm_bindgen(js_name = addHandle)]
    pub fn add_handle(
        &mut self,
        now: JsValue,
        call_id: JsValue,
        model: JsValue,
        handle: JsValue,
        config: &[f64],
    ) -> JsResult<()> {
        let now = js(json::uint(&now, "now"))?;
        let id = js(call(&call_id))?;
        let model = js(args::model(&model))?;
        let handle = js(bounded_string(&handle, "handle"))?;
        let config = js(crate::config::tracker_config(config))?;
        js(self.core.add_handle(now, id, model, &handle, config))
    }

    /// `resumeCall(now, text)`: a call from its stored record after a restart; returns its id.
    #[wasm_bindgen(js_name = resumeCall)]
    pub fn resume_call(&mut self, now: JsValue, text: JsValue) -> JsResult<f64> {
        let now = js(json::uint(&now, "now"))?;
        let text = js(bounded_string(&text, "record"))?;
        js(self.core.resume_call(now, &text)).map(|c| c.0 as f64)
    }

    /// `adoptHandle(now, call, handle, config?)`: an unanswered create was reconciled.
    #[wasm_bindgen(js_name = adoptHandle)]
    pub fn adopt_handle(
        &mut self,
        now: JsValue,
        call_id: JsValue,
        handle: JsValue,
        config: &[f64],
    ) -> JsResult<()> {
        let now = js(json::uint(&now, "now"))?;
        let id = js(call(&call_id))?;
        let handle = js(bounded_string(&handle, "handle"))?;
        let config = js(crate::config::tracker_config(config))?;
        js(self.core.adopt_handle(now, id, &handle, config))
    }

    /// `handle(now, call, input)`: something happened to a call (the tracker's `Input`, camelCase
    /// as `Tracker.handleInput` takes it).
    pub fn handle(&mut self, now: JsValue, call_id: JsValue, input: JsValue) -> JsResult<()> {
        let now = js(json::uint(&now, "now"))?;
        let id = js(call(&call_id))?;
        let input: Input = js(read_js(&input, "input"))?;
        js(self.core.handle_input(now, id, input))
    }

    /// `timeout(now)`: drives every call due.
    pub fn timeout(&mut self, now: JsValue) -> JsResult<()> {
        let now = js(json::uint(&now, "now"))?;
        self.core.handle_timeout(now);
        Ok(())
    }

    /// `persisted(call, version)`: the record of `call` at `version` is written.
    pub fn persisted(&mut self, call_id: JsValue, version: JsValue) -> JsResult<()> {
        let id = js(call(&call_id))?;
        let version = js(json::uint(&version, "version"))?;
        js(self.core.handle_persisted(id, version))
    }

    /// `remove(call)`: ends a call for good (a `removed` output follows).
    pub fn remove(&mut self, call_id: JsValue) -> JsResult<bool> {
        Ok(self.core.remove(js(call(&call_id))?))
    }

    /// `unload(call)`: drops a call from this list only (its record stays).
    pub fn unload(&mut self, call_id: JsValue) -> JsResult<bool> {
        Ok(self.core.unload(js(call(&call_id))?))
    }

    /// `drain()`: every output queued now, in order (empty when there is nothing to do).
    pub fn drain(&mut self) -> JsResult<JsValue> {
        let outs: Vec<_> = core::iter::from_fn(|| self.core.poll_output()).collect();
        write_js(&outs)
    }

    /// When `timeout` has work next (ms), if ever.
    #[wasm_bindgen(getter, js_name = pollTimeout)]
    pub fn poll_timeout(&self) -> Option<f64> {
        self.core.poll_timeout().map(|t| t as f64)
    }

    /// `saveCall(call)`: `{call, version, model, nextWakeAt, done, text}` for the store.
    #[wasm_bindgen(js_name = saveCall)]
    pub fn save_call(&self, call_id: JsValue) -> JsResult<JsValue> {
        let saved = js(self.core.save_call(js(call(&call_id))?))?;
        to_js(&Saved {
            call: saved.call.0,
            version: saved.version,
            model: saved.model.as_str(),
            next_wake_at: saved.next_wake_at,
            done: saved.done,
            text: &saved.text,
        })
    }

    /// `record(call)`: the call's run record (status, button, outcome, ...), or `null`.
    pub fn record(&self, call_id: JsValue) -> JsResult<JsValue> {
        match self.core.tracker(js(call(&call_id))?) {
            Some(t) => write_js(&t.record()),
            None => Ok(JsValue::NULL),
        }
    }

    /// `openPrompts(call)`: `[key, request]` pairs asked and not answered (the requests as the
    /// server sent them: no key is renamed).
    #[wasm_bindgen(js_name = openPrompts)]
    pub fn open_prompts(&self, call_id: JsValue) -> JsResult<JsValue> {
        to_js(&self.core.open_prompts(js(call(&call_id))?))
    }
}

/// The members of a `readJobAnswer` answer.
const JOB_ANSWER_KEYS: [&str; 5] = ["request", "handle", "status", "headers", "body"];

/// `readJobAnswer(answer, now)`: an answer of the Sume Open API as the tracker input it stands
/// for (camelCase, as `WatchList.handle` and `Tracker.handleInput` take it), for a host that
/// moves a watch list's requests itself. `answer` is
/// `{request, handle, status, headers, body}`: `request` is `"submit"`, `"status"`, `"result"`
/// or `"cancel"`, `handle` the job id asked about, `status` the HTTP status (0 when no answer
/// came), `headers` `[[name, value], ...]` and `body` the parsed JSON (null when it was none, as
/// a proxy's HTML page). The input is `job_created`, `job_polled` (`nsfw` read as `failed`, the
/// result's `data` kept), `cancel_answered` or `request_failed` (the envelope's code, and
/// `Retry-After`, a date read against `now`). A submit that failed is admission's to decide,
/// not a tracker's: `invalid_input`. Throws `invalid_input` and `malformed` for an answer it
/// cannot read, naming the member.
#[wasm_bindgen(js_name = readJobAnswer)]
pub fn read_job_answer_js(answer: JsValue, now: JsValue) -> JsResult<JsValue> {
    let r = js((|| {
        let now = json::uint(&now, "now")?;
        let given: Value = json::from_js(&answer, "answer")?;
        let Value::Object(members) = &given else {
            return Err(Error::invalid_input("answer", "expected an object"));
        };
        // Keys are the wire's own words here (one word each), read as given: the body is the
        // server's JSON, never renamed.
        if let Some(k) = members
            .keys()
            .find(|k| !JOB_ANSWER_KEYS.contains(&k.as_str()))
        {
            return Err(Error::Malformed {
                what: "argument",
                reason: format!(
                    "answer: unknown key {}; expected one of {}",
                    json::short_reason(&format!("\"{k}\"")),
                    JOB_ANSWER_KEYS.join(", ")
                ),
            });
        }
        let answer: OpenAnswer = serde_json::from_value(given).map_err(|e| Error::Malformed {
            what: "argument",
            reason: format!("answer: {}", json::short_reason(&e.to_string())),
        })?;
        answer_input(&answer, now)
    })())?;
    write_js(&r)
}
