//! Scenario vectors: data-only files that pin exact behaviour, run identically by `cargo test`,
//! `longcall replay`, Node and headless Chromium.
//!
//! A vector is JSON:
//!
//! ```json
//! {
//!   "name": "job-cancel-too-late",
//!   "about": "C-8: a 409 after start shows too_late and keeps waiting",
//!   "model": "job",
//!   "config": {"poll": {"jitter": "none"}, "seed": 1},
//!   "steps": [
//!     {"at": 0, "input": {"type": "job_created", "job": {"id": "job_1", "status": "queued"}},
//!      "expect": [{"type": "status", "status": "queued"}, {"type": "button", "state": "available"},
//!                 {"type": "wake_at", "at": 1000}]},
//!     {"at": 1000, "timeout": true, "expect": [...]},
//!     {"at": 1001, "input": {"type": "cancel_pressed"}, "error": "cancel_refused", "expect": [...]}
//!   ]
//! }
//! ```
//!
//! Each step either hands `input` to [`Tracker::handle_input`] or (with `"timeout": true`) calls
//! [`Tracker::handle_timeout`], at time `at`; then every output is drained (ending with `wake_at`
//! or `idle`) and compared, as JSON values, with `expect`. `error` names the error code the input
//! must be refused with (the outputs are still compared). Optional `record` is compared with the
//! fields it names of the final [`crate::tracker::RunRecord`].
//!
//! Instead of `input`, a step may carry `open_api`: a Sume Open API HTTP answer
//! `{"request": "submit"|"status"|"result"|"cancel", "handle", "status", "headers"?, "body"?}`,
//! read into the input by [`crate::wire::sume_open::answer_input`] at time `at`. When the answer
//! cannot be read (an unknown `sume_status`), its error code is the step's `error`, nothing
//! reaches the tracker, and `expect` is empty.
//!
//! **Endpoint vectors** (bytes in, transmits and events out) add `"endpoint"`: `{"call": {"name",
//! "arguments", "ttl_ms"?}}` or `{"watch": "<id>"}`; `config` is then the tracker's part of the
//! endpoint config. Their steps are one of: `message` (a JSON-RPC text handed to
//! [`CallEndpoint::handle_message`]), `transport_failure` (a request id), `timeout`, `input`
//! (`cancel_pressed`, `input_answered`, `stop_watching`: the user inputs), `restore` (snapshot,
//! then [`CallEndpoint::restore`] at `at`), or nothing (just drain, e.g. the first transmit).
//! A 2026 endpoint vector names its client in `client_info` (`{"name", "version"}`, rule M-21),
//! so its request texts do not change with this crate's version.
//! `expect` lists the drained [`crate::endpoint::Event`]s as JSON.

use alloc::string::String;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::endpoint::{CallEndpoint, Config};
use crate::error::Error;
use crate::model::Model;
use crate::tracker::{Input, Tracker, TrackerConfig};
use crate::wire::mcp2026::ClientInfo;

/// One scenario.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Vector {
    /// A short unique name.
    pub name: String,
    /// What it checks, with the rule it comes from.
    #[serde(default)]
    pub about: String,
    /// The model.
    pub model: Model,
    /// The tracker configuration.
    #[serde(default)]
    pub config: TrackerConfig,
    /// The timed inputs and their exact outputs.
    pub steps: Vec<Step>,
    /// Fields of the final run record, compared exactly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub record: Option<serde_json::Map<String, Value>>,
    /// Present for an endpoint vector: how the endpoint starts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<EndpointStart>,
    /// A 2026 endpoint vector's client identity ([`Config::client_info`]): named, its request
    /// texts do not change with this crate's version, which the default identity carries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_info: Option<ClientInfo>,
}

// Read member by member from a `Value` object (`crate::tagged`): a derived reader would also
// compile an array form nobody writes.
impl<'de> Deserialize<'de> for Vector {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut f = crate::tagged::members(d, "struct Vector")?;
        Ok(Vector {
            name: f.req("name")?,
            about: f.def("about")?,
            model: f.req("model")?,
            config: f.def("config")?,
            steps: f.req("steps")?,
            record: f.opt("record")?,
            endpoint: f.opt("endpoint")?,
            client_info: f.opt("client_info")?,
        })
    }
}

/// How an endpoint vector's endpoint starts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndpointStart {
    /// [`CallEndpoint::call_tool`].
    Call {
        /// The tool.
        name: String,
        /// Its arguments.
        #[serde(default)]
        arguments: Value,
        /// 2025 `task.ttl`.
        #[serde(default)]
        ttl_ms: Option<u64>,
    },
    /// [`CallEndpoint::watch`] of a persisted id.
    Watch(String),
}

/// One timed input and what it must produce.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Step {
    /// Host time, ms.
    pub at: u64,
    /// The input (absent for a timeout step).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<Input>,
    /// A Sume Open API answer, read by [`crate::wire::sume_open::answer_input`] into the input
    /// (a read error is the step's error, and nothing reaches the tracker).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_api: Option<crate::wire::sume_open::OpenAnswer>,
    /// True for a `handle_timeout(at)` step.
    #[serde(default, skip_serializing_if = "core::ops::Not::not")]
    pub timeout: bool,
    /// Endpoint vectors: a JSON-RPC message, exactly as it arrived.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Endpoint vectors: the request with this id got no answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transport_failure: Option<u64>,
    /// Endpoint vectors: snapshot and restore at `at`.
    #[serde(default, skip_serializing_if = "core::ops::Not::not")]
    pub restore: bool,
    /// The error code the input must be refused with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Every output drained after the step, in order.
    pub expect: Vec<Value>,
}

// Read member by member from a `Value` object (`crate::tagged`): a derived reader would also
// compile an array form nobody writes.
impl<'de> Deserialize<'de> for Step {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut f = crate::tagged::members(d, "struct Step")?;
        Ok(Step {
            at: f.req("at")?,
            input: f.opt("input")?,
            open_api: f.opt("open_api")?,
            timeout: f.def("timeout")?,
            message: f.opt("message")?,
            transport_failure: f.opt("transport_failure")?,
            restore: f.def("restore")?,
            error: f.opt("error")?,
            expect: f.req("expect")?,
        })
    }
}

/// What one step did.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepResult {
    /// Index of the step.
    pub index: usize,
    /// The error code the step returned, if any.
    pub error: Option<String>,
    /// The outputs drained.
    pub outputs: Vec<Value>,
    /// True when error and outputs are as expected.
    pub ok: bool,
}

/// The result of running a vector.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// The vector's name.
    pub name: String,
    /// True when every step (and the record) matched.
    pub passed: bool,
    /// Per step.
    pub steps: Vec<StepResult>,
    /// The final record, as JSON.
    pub record: Value,
    /// True when the record fields named by the vector matched (or none were named).
    pub record_ok: bool,
}

/// Reads a vector from JSON text.
pub fn parse(text: &str) -> Result<Vector, Error> {
    serde_json::from_slice(text.as_bytes()).map_err(|e| Error::Malformed {
        what: "vector",
        reason: alloc::format!("{e}"),
    })
}

/// Runs a vector natively. Errors only when the vector itself is unusable (a bad config).
pub fn run(vector: &Vector) -> Result<Report, Error> {
    if let Some(start) = &vector.endpoint {
        return run_endpoint(vector, start);
    }
    if vector.client_info.is_some() {
        return Err(Error::invalid_config(
            "client_info",
            "only an endpoint vector sends requests that name a client",
        ));
    }
    let mut tracker = Tracker::new(vector.model, vector.config.clone())?;
    let mut steps = Vec::with_capacity(vector.steps.len());
    let mut passed = true;
    for (index, step) in vector.steps.iter().enumerate() {
        let input = match (&step.input, &step.open_api) {
            (None, Some(answer)) => match crate::wire::sume_open::answer_input(answer, step.at) {
                Ok(input) => Some(input),
                Err(e) => {
                    steps.push(StepResult {
                        index,
                        error: Some(e.code().into()),
                        outputs: Vec::new(),
                        ok: step.error.as_deref() == Some(e.code()) && step.expect.is_empty(),
                    });
                    passed &= steps.last().is_some_and(|s| s.ok);
                    continue;
                }
            },
            (input, _) => input.clone(),
        };
        let error = match (&input, step.timeout) {
            (Some(input), _) => tracker
                .handle_input(step.at, input.clone())
                .err()
                .map(|e| e.code().into()),
            (None, true) => {
                tracker.handle_timeout(step.at);
                None
            }
            (None, false) => Some(String::from("step_has_no_input")),
        };
        let outputs: Vec<Value> = tracker.drain().iter().map(value_of).collect();
        let ok = error == step.error && outputs == step.expect;
        passed &= ok;
        steps.push(StepResult {
            index,
            error,
            outputs,
            ok,
        });
    }
    let record = value_of(&tracker.record());
    let record_ok = vector
        .record
        .as_ref()
        .is_none_or(|want| want.iter().all(|(k, v)| record.get(k) == Some(v)));
    Ok(Report {
        name: vector.name.clone(),
        passed: passed && record_ok,
        steps,
        record,
        record_ok,
    })
}

/// A value as it reads back from its JSON text (`null` if it has none): the same `Value` as
/// `serde_json::to_value`, without a second serializer of every type in WebAssembly builds.
fn value_of<T: Serialize>(value: &T) -> Value {
    serde_json::to_string(value)
        .ok()
        .and_then(|text| serde_json::from_slice(text.as_bytes()).ok())
        .unwrap_or(Value::Null)
}

fn run_endpoint(vector: &Vector, start: &EndpointStart) -> Result<Report, Error> {
    let config = Config {
        tracker: vector.config.clone(),
        client_info: vector.client_info.clone(),
        ..Config::default()
    };
    let mut ep = match start {
        EndpointStart::Call {
            name,
            arguments,
            ttl_ms,
        } => CallEndpoint::call_tool(vector.model, name, arguments.clone(), *ttl_ms, config)?,
        EndpointStart::Watch(id) => CallEndpoint::watch(vector.model, id, config)?,
    };
    let mut steps = Vec::with_capacity(vector.steps.len());
    let mut passed = true;
    for (index, step) in vector.steps.iter().enumerate() {
        let at = step.at;
        let mut error = None;
        if let Some(text) = &step.message {
            ep.handle_message(at, text.as_bytes());
        } else if let Some(id) = step.transport_failure {
            ep.handle_transport_failure(at, id);
        } else if step.timeout {
            ep.handle_timeout(at);
        } else if step.restore {
            match ep.snapshot().and_then(|s| CallEndpoint::restore(&s, at)) {
                Ok(back) => ep = back,
                Err(e) => error = Some(String::from(e.code())),
            }
        } else if let Some(input) = &step.input {
            let r = match input {
                Input::CancelPressed => ep.cancel_pressed(at),
                Input::InputAnswered { key, response } => {
                    ep.answer_input(at, key, response.clone())
                }
                Input::StopWatching => {
                    ep.stop_watching(at);
                    Ok(())
                }
                _ => Err(Error::invalid_input(
                    "input",
                    "an endpoint vector takes only user inputs; answers arrive as messages",
                )),
            };
            error = r.err().map(|e| e.code().into());
        }
        let mut outputs = Vec::new();
        loop {
            let e = ep.poll_event();
            let last = matches!(
                e,
                crate::endpoint::Event::WakeAt { .. } | crate::endpoint::Event::Idle
            );
            outputs.push(value_of(&e));
            if last {
                break;
            }
        }
        let ok = error == step.error && outputs == step.expect;
        passed &= ok;
        steps.push(StepResult {
            index,
            error,
            outputs,
            ok,
        });
    }
    let record = value_of(&ep.tracker().record());
    let record_ok = vector
        .record
        .as_ref()
        .is_none_or(|want| want.iter().all(|(k, v)| record.get(k) == Some(v)));
    Ok(Report {
        name: vector.name.clone(),
        passed: passed && record_ok,
        steps,
        record,
        record_ok,
    })
}
