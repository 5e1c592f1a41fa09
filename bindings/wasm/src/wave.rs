//! The wave scheduler as a JavaScript class (`Wave`): many paid jobs watched together with
//! `jobs_wait` rounds, every per-job decision made by one core tracker per job. Data crosses in
//! camelCase ([`crate::case`]); the `jobs_wait` body (`call`) is the Sume wire's own JSON, sent
//! as it is. Every method that changes the wave returns the outputs it queued, ending with
//! `wake_at` (call `handleTimeout(at)` then) or `idle`.

use longcall::snapshot;
use longcall::tracker::{Failure, Input};
use longcall::view::JobView;
use longcall::wave::{Wave as Core, WaveConfig, WaveInput, WaveOutput};
use serde::Serialize;
use wasm_bindgen::prelude::*;

use crate::case::{read_js, write_js};
use crate::endpoint::HttpArgs;
use crate::errors::{js, JsResult};
use crate::json::{self, bounded_string};

/// Many jobs watched together (`new Wave(config?)`).
#[wasm_bindgen]
pub struct Wave {
    core: Core,
}

#[wasm_bindgen]
impl Wave {
    /// `new Wave(config?)`: `{waitFor?: 'all' | 'any', timeoutSeconds?, includeResults?,
    /// minRoundIntervalMs?, seed?, backoff?: {initialMs, ...}}`. Throws `invalid_config` for a
    /// value the core refuses, `malformed` for a key it does not have.
    #[wasm_bindgen(constructor)]
    pub fn new(config: JsValue) -> JsResult<Wave> {
        let config: WaveConfig = if config.is_undefined() || config.is_null() {
            WaveConfig::default()
        } else {
            js(read_js(&config, "config"))?
        };
        Ok(Wave {
            core: js(Core::new(config))?,
        })
    }

    /// `addJob(now, job, deadline?)`: a job whose submit was accepted (`{id, status}` as the
    /// submit answered it), watched until `deadline` (absolute ms) if given.
    #[wasm_bindgen(js_name = addJob)]
    pub fn add_job(&mut self, now: JsValue, job: JsValue, deadline: JsValue) -> JsResult<JsValue> {
        let now = js(json::uint(&now, "now"))?;
        let deadline = js(json::opt_uint(&deadline, "deadline"))?;
        let job: JobView = js(read_js(&job, "job"))?;
        js(self
            .core
            .handle_input(now, WaveInput::AddJob { job, deadline }))?;
        self.drain_outputs()
    }

    /// `handleTimeout(now)`: time passed; starts a round when one is due (a `wait` output:
    /// send its `call` as the `jobs_wait` body).
    #[wasm_bindgen(js_name = handleTimeout)]
    pub fn handle_timeout(&mut self, now: JsValue) -> JsResult<JsValue> {
        let now = js(json::uint(&now, "now"))?;
        self.core.handle_timeout(now);
        self.drain_outputs()
    }

    /// `handleWaitAnswer(now, callId, jobs)`: a `jobs_wait` call answered with its job entries
    /// (`[{id, status, result?, error?}]`, in any order; a timed-out wait is a partial snapshot
    /// and reads the same).
    #[wasm_bindgen(js_name = handleWaitAnswer)]
    pub fn handle_wait_answer(
        &mut self,
        now: JsValue,
        call_id: JsValue,
        jobs: JsValue,
    ) -> JsResult<JsValue> {
        let now = js(json::uint(&now, "now"))?;
        let call_id = js(json::uint(&call_id, "callId"))?;
        let jobs: Vec<JobView> = js(read_js(&jobs, "jobs"))?;
        js(self
            .core
            .handle_input(now, WaveInput::WaitAnswered { call_id, jobs }))?;
        self.drain_outputs()
    }

    /// `handleWaitHttp(now, callId, {status, headers?}, body)`: a `jobs_wait` call answered
    /// over HTTP, exactly as it arrived (`body` a string or a `Uint8Array`); the core reads it
    /// (rule B-11): a 2xx `jobs_wait` answer is applied, anything else is a failed call,
    /// reported as a `call_failed` output with its status and error code, and a 429's
    /// `Retry-After` (seconds or an HTTP date) delays the next round.
    #[wasm_bindgen(js_name = handleWaitHttp)]
    pub fn handle_wait_http(
        &mut self,
        now: JsValue,
        call_id: JsValue,
        answer: JsValue,
        body: JsValue,
    ) -> JsResult<JsValue> {
        let (now, call_id, answer) = js((|| {
            let now = json::uint(&now, "now")?;
            let call_id = json::uint(&call_id, "callId")?;
            Ok((now, call_id, HttpArgs::read(&answer, &body)?))
        })())?;
        js(self
            .core
            .handle_wait_http(now, call_id, answer.answer(), &answer.headers))?;
        self.drain_outputs()
    }

    /// `handleWaitFailed(now, callId, failure)`: a `jobs_wait` call failed without a usable
    /// answer (`{kind: 'transport'}` when no answer came; an HTTP answer is better given
    /// whole to `handleWaitHttp`).
    #[wasm_bindgen(js_name = handleWaitFailed)]
    pub fn handle_wait_failed(
        &mut self,
        now: JsValue,
        call_id: JsValue,
        failure: JsValue,
    ) -> JsResult<JsValue> {
        let now = js(json::uint(&now, "now"))?;
        let call_id = js(json::uint(&call_id, "callId"))?;
        let failure: Failure = js(read_js(&failure, "failure"))?;
        js(self
            .core
            .handle_input(now, WaveInput::WaitFailed { call_id, failure }))?;
        self.drain_outputs()
    }

    /// `release(now, id)`: the job is no longer needed. Returns `{released, outputs}`:
    /// `cancel_requested` (queued: a `jobs_cancel` goes out), `cancel_pending`,
    /// `stopped_waiting` (started: it runs and bills), `already_done`.
    pub fn release(&mut self, now: JsValue, id: JsValue) -> JsResult<JsValue> {
        #[derive(Serialize)]
        struct Released {
            released: longcall::wave::Released,
            outputs: Vec<longcall::wave::WaveOutput>,
        }
        let now = js(json::uint(&now, "now"))?;
        let id = js(bounded_string(&id, "id"))?;
        js(self.core.handle_input(now, WaveInput::Release { id }))?;
        // What the release did is the first output; the page gets it beside the others.
        let mut outputs = self.core.drain();
        let released = match outputs.first() {
            Some(WaveOutput::Released { released, .. }) => *released,
            _ => {
                return js(Err(longcall::Error::invalid_input(
                    "id",
                    "the wave did not say what the release did",
                )))
            }
        };
        outputs.remove(0);
        write_js(&Released { released, outputs })
    }

    /// `pressCancel(now, id)`: the person pressed one job's cancel button (throws
    /// `cancel_refused` when its button does not allow it).
    #[wasm_bindgen(js_name = pressCancel)]
    pub fn press_cancel(&mut self, now: JsValue, id: JsValue) -> JsResult<JsValue> {
        let now = js(json::uint(&now, "now"))?;
        let id = js(bounded_string(&id, "id"))?;
        js(self.core.handle_input(now, WaveInput::CancelPressed { id }))?;
        self.drain_outputs()
    }

    /// `handleJobInput(now, id, input)`: something for one job's tracker (its cancel answer,
    /// a failed cancel request), as `Tracker.handleInput` takes it.
    #[wasm_bindgen(js_name = handleJobInput)]
    pub fn handle_job_input(
        &mut self,
        now: JsValue,
        id: JsValue,
        input: JsValue,
    ) -> JsResult<JsValue> {
        let now = js(json::uint(&now, "now"))?;
        let id = js(bounded_string(&id, "id"))?;
        let input: Input = js(read_js(&input, "input"))?;
        js(self.core.handle_input(now, WaveInput::Job { id, input }))?;
        self.drain_outputs()
    }

    /// `drainOutputs()`: the outputs queued now.
    #[wasm_bindgen(js_name = drainOutputs)]
    pub fn drain_outputs(&mut self) -> JsResult<JsValue> {
        write_js(&self.core.drain())
    }

    /// True once the wave is satisfied (`any`: a job settled; `all`: every job settled or was
    /// given up).
    #[wasm_bindgen(getter, js_name = isSatisfied)]
    pub fn is_satisfied(&self) -> bool {
        self.core.is_satisfied()
    }

    /// True while a round's calls are unanswered.
    #[wasm_bindgen(getter, js_name = roundInFlight)]
    pub fn round_in_flight(&self) -> bool {
        self.core.round_in_flight()
    }

    /// How many rounds were sent.
    #[wasm_bindgen(getter, js_name = roundsSent)]
    pub fn rounds_sent(&self) -> f64 {
        self.core.rounds_sent() as f64
    }

    /// When `handleTimeout` has work next (ms), if ever.
    #[wasm_bindgen(getter, js_name = pollTimeout)]
    pub fn poll_timeout(&self) -> Option<f64> {
        self.core.poll_timeout().map(|t| t as f64)
    }

    /// The ids still needed (not settled, not given up).
    #[wasm_bindgen(getter, js_name = neededIds)]
    pub fn needed_ids(&self) -> Vec<String> {
        self.core.needed_ids().map(Into::into).collect()
    }

    /// `snapshot()`: the versioned snapshot text (absolute times; restores exactly).
    pub fn snapshot(&self) -> JsResult<String> {
        js(snapshot::save(&self.core))
    }

    /// `Wave.restore(text)`: a wave from a snapshot.
    pub fn restore(text: JsValue) -> JsResult<Wave> {
        let text = js(bounded_string(&text, "snapshot"))?;
        Ok(Wave {
            core: js(snapshot::restore(&text))?,
        })
    }
}
