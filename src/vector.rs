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

use alloc::string::String;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::Error;
use crate::model::Model;
use crate::tracker::{Input, Tracker, TrackerConfig};

/// One scenario.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
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
}

/// One timed input and what it must produce.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
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
    /// The error code the input must be refused with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Every output drained after the step, in order.
    pub expect: Vec<Value>,
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
    serde_json::from_str(text).map_err(|e| Error::Malformed {
        what: "vector",
        reason: alloc::format!("{e}"),
    })
}

/// Runs a vector natively. Errors only when the vector itself is unusable (a bad config).
pub fn run(vector: &Vector) -> Result<Report, Error> {
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
        let outputs: Vec<Value> = tracker
            .drain()
            .iter()
            .map(|o| serde_json::to_value(o).unwrap_or(Value::Null))
            .collect();
        let ok = error == step.error && outputs == step.expect;
        passed &= ok;
        steps.push(StepResult {
            index,
            error,
            outputs,
            ok,
        });
    }
    let record = serde_json::to_value(tracker.record()).unwrap_or(Value::Null);
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
