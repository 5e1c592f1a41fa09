//! The other rule functions: seeds, outcomes, the cancel window and cancel answers, admission
//! advice, `jobs_wait` planning, poll plans, the task/job mapping and ownership.
//!
//! Structured arguments and results cross as plain objects with camelCase keys (see
//! [`crate::case`]: an unknown key is `malformed`, naming it); every verdict is a snake_case
//! string, exactly as the core serializes it. A `jobs_wait` body (`WaitPlan.calls`) keeps the
//! Sume wire's own spelling.

use longcall::admission::{self, Submitted};
use longcall::batch::{self, WaitFor};
use longcall::cancel::{self, CancelAnswer};
use longcall::lifecycle::{self, Seed};
use longcall::outcome::{self, Payload};
use longcall::ownership::{self, Owner};
use longcall::poll::{self, PollPolicy};
use longcall::{mapping, Error, Model, Rule, Status};
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;

use crate::args;
use crate::case::{read_js, write_js};
use crate::errors::{js, JsResult};
use crate::json::{self, to_js};

/// The serde spelling of a value whose serialization is a plain string (a unit enum variant).
fn name<T: Serialize>(value: &T) -> JsResult<JsValue> {
    to_js(value)
}

fn model_status(model: &JsValue, status: &JsValue) -> Result<(Model, Status), Error> {
    let model = args::model(model)?;
    Ok((model, args::status(model, status, "status")?))
}

/// `seed(model, first)`: how the first status seen relates to the model's seeds:
/// `"normal" | "unusual" | "violation"`.
#[wasm_bindgen]
pub fn seed(model: JsValue, first: JsValue) -> JsResult<JsValue> {
    let (model, first) = js(model_status(&model, &first))?;
    name::<Seed>(&js(lifecycle::seed(model, first))?)
}

/// `classifyOutcome(model, status, payload)`: `{outcome, violation}` for a terminal status and
/// what came with it (`payload = {result: null | boolean(isError), error: boolean}`).
#[wasm_bindgen(js_name = classifyOutcome)]
pub fn classify_outcome(model: JsValue, status: JsValue, payload: JsValue) -> JsResult<JsValue> {
    #[derive(Serialize)]
    struct Classified {
        outcome: outcome::Outcome,
        violation: Option<Rule>,
    }
    let (model, status) = js(model_status(&model, &status))?;
    let payload: Payload = js(read_js(&payload, "payload"))?;
    let (outcome, violation) = js(outcome::classify(model, status, payload))?;
    to_js(&Classified { outcome, violation })
}

/// `needsResultFetch(model, status)`: a 2025 task's result comes from `tasks/result`.
#[wasm_bindgen(js_name = needsResultFetch)]
pub fn needs_result_fetch(model: JsValue, status: JsValue) -> JsResult<bool> {
    let (model, status) = js(model_status(&model, &status))?;
    Ok(outcome::needs_result_fetch(model, status))
}

/// `cancelWindow(model, status)`: `"open" | "started" | "terminal"`.
#[wasm_bindgen(js_name = cancelWindow)]
pub fn cancel_window(model: JsValue, status: JsValue) -> JsResult<JsValue> {
    let (model, status) = js(model_status(&model, &status))?;
    name(&js(cancel::window(model, status))?)
}

/// `classifyCancelAnswer(model, answer)`: what a cancel answer means (a verdict string).
#[wasm_bindgen(js_name = classifyCancelAnswer)]
pub fn classify_cancel_answer(model: JsValue, answer: JsValue) -> JsResult<JsValue> {
    let model = js(args::model(&model))?;
    let answer: CancelAnswer = js(read_js(&answer, "answer"))?;
    name(&cancel::classify_answer(model, answer))
}

/// `classifySubmit(submitted)`: admission advice for a submit (`{advice, ...}`).
#[wasm_bindgen(js_name = classifySubmit)]
pub fn classify_submit(submitted: JsValue) -> JsResult<JsValue> {
    let submitted: Submitted = js(read_js(&submitted, "submitted"))?;
    write_js(&admission::classify(&submitted))
}

/// `mcpCreateLost()`: the advice when an MCP `CreateTaskResult` was lost (`reconcile`).
#[wasm_bindgen(js_name = mcpCreateLost)]
pub fn mcp_create_lost() -> JsResult<JsValue> {
    write_js(&admission::mcp_create_lost())
}

/// What [`plan_waits`] reads.
#[derive(Serialize)]
struct WaitArgs {
    ids: Vec<String>,
    terminal: Vec<String>,
    wait_for: WaitFor,
    timeout_seconds: Option<u32>,
    include_results: bool,
}

// Read member by member ([`json::members`]): `ids` required, the rest defaulted
// (`include_results` to true), unknown members refused, serde's messages.
impl<'de> Deserialize<'de> for WaitArgs {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        const FIELDS: &[&str] = &[
            "ids",
            "terminal",
            "wait_for",
            "timeout_seconds",
            "include_results",
        ];
        let mut ids = None;
        let mut a = WaitArgs {
            ids: Vec::new(),
            terminal: Vec::new(),
            wait_for: WaitFor::default(),
            timeout_seconds: None,
            include_results: true,
        };
        json::members(d, "struct WaitArgs", FIELDS, &mut |i, v| {
            match i {
                0 => ids = Some(Deserialize::deserialize(v)?),
                1 => a.terminal = Deserialize::deserialize(v)?,
                2 => a.wait_for = Deserialize::deserialize(v)?,
                3 => a.timeout_seconds = Deserialize::deserialize(v)?,
                _ => a.include_results = Deserialize::deserialize(v)?,
            }
            Ok(())
        })?;
        a.ids = ids.ok_or_else(|| serde::de::Error::missing_field("ids"))?;
        Ok(a)
    }
}

/// `planWaits({ids, terminal?, waitFor?, timeoutSeconds?, includeResults?})`: the `jobs_wait`
/// calls for a wave (chunks of 20, duplicates and known-terminal ids left out), as
/// `{calls, waitFor, duplicates, alreadyTerminal}`; each call is the wire body as it is.
#[wasm_bindgen(js_name = planWaits)]
pub fn plan_waits(args: JsValue) -> JsResult<JsValue> {
    let a: WaitArgs = js(read_js(&args, "args"))?;
    let plan = js(batch::plan_waits(
        a.ids.iter().map(String::as_str),
        |id| a.terminal.iter().any(|t| t == id),
        a.wait_for,
        a.timeout_seconds,
        a.include_results,
    ))?;
    write_js(&plan)
}

/// What [`poll_plan`] reads.
#[derive(Serialize)]
struct PlanArgs {
    policy: PollPolicy,
    seed: u64,
    start_ms: u64,
    count: u32,
    server_interval_ms: Option<u64>,
}

// Read member by member ([`json::members`]): `count` required, the rest defaulted, unknown
// members refused, serde's messages.
impl<'de> Deserialize<'de> for PlanArgs {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        const FIELDS: &[&str] = &["policy", "seed", "start_ms", "count", "server_interval_ms"];
        let mut count = None;
        let mut a = PlanArgs {
            policy: PollPolicy::default(),
            seed: 0,
            start_ms: 0,
            count: 0,
            server_interval_ms: None,
        };
        json::members(d, "struct PlanArgs", FIELDS, &mut |i, v| {
            match i {
                0 => a.policy = Deserialize::deserialize(v)?,
                1 => a.seed = Deserialize::deserialize(v)?,
                2 => a.start_ms = Deserialize::deserialize(v)?,
                3 => count = Some(Deserialize::deserialize(v)?),
                _ => a.server_interval_ms = Deserialize::deserialize(v)?,
            }
            Ok(())
        })?;
        a.count = count.ok_or_else(|| serde::de::Error::missing_field("count"))?;
        Ok(a)
    }
}

/// `pollPlan({policy?, seed?, startMs?, count, serverIntervalMs?})`: the poll times a fresh
/// schedule produces (absolute ms), as `longcall plan` prints them.
#[wasm_bindgen(js_name = pollPlan)]
pub fn poll_plan(args: JsValue) -> JsResult<JsValue> {
    let a: PlanArgs = js(read_js(&args, "args"))?;
    for t in [Some(a.seed), Some(a.start_ms), a.server_interval_ms]
        .into_iter()
        .flatten()
    {
        if t as f64 > json::MAX_SAFE {
            return Err(crate::errors::to_js(&Error::invalid_input(
                "args",
                "numbers must be at most 2^53-1",
            )));
        }
    }
    let times = js(poll::plan(
        a.policy,
        a.seed,
        a.start_ms,
        a.count,
        a.server_interval_ms,
    ))?;
    to_js(&times)
}

/// `taskStatusFor(jobStatus)`: the task status a job status maps to (the task/job mapping,
/// `longcall::mapping`).
#[wasm_bindgen(js_name = taskStatusFor)]
pub fn task_status_for(job_status: JsValue) -> JsResult<JsValue> {
    let s = js(args::status(Model::Job, &job_status, "job_status"))?;
    Ok(JsValue::from_str(
        mapping::task_status_for(s).map_or("", |t| t.as_str()),
    ))
}

/// `jobStatusesFor(taskStatus)`: the job statuses a task status stands for (`[]` for
/// `input_required`, which jobs do not have).
#[wasm_bindgen(js_name = jobStatusesFor)]
pub fn job_statuses_for(task_status: JsValue) -> JsResult<js_sys::Array> {
    let s = js(args::status(Model::Task2026, &task_status, "task_status"))?;
    Ok(mapping::job_statuses_for(s)
        .iter()
        .map(|j| JsValue::from_str(j.as_str()))
        .collect())
}

/// `mappingConcepts()`: `[{task, job}]`, each MCP task concept and the closest job construct.
#[wasm_bindgen(js_name = mappingConcepts)]
pub fn mapping_concepts() -> JsResult<JsValue> {
    #[derive(Serialize)]
    struct Row {
        task: &'static str,
        job: Option<&'static str>,
    }
    let rows: Vec<Row> = mapping::CONCEPTS
        .iter()
        .map(|&(task, job)| Row { task, job })
        .collect();
    to_js(&rows)
}

/// `jobAccess(owner, caller)`: `"owner" | "hidden"` (`{workspace, member}` each).
#[wasm_bindgen(js_name = jobAccess)]
pub fn job_access(owner: JsValue, caller: JsValue) -> JsResult<JsValue> {
    let owner: Owner = js(read_js(&owner, "owner"))?;
    let caller: Owner = js(read_js(&caller, "caller"))?;
    name(&ownership::job_access(&owner, &caller))
}

/// `taskAccess(principal, caller)`: `"owner" | "hidden"`.
#[wasm_bindgen(js_name = taskAccess)]
pub fn task_access(principal: JsValue, caller: JsValue) -> JsResult<JsValue> {
    let p = js(json::bounded_string(&principal, "principal"))?;
    let c = js(json::bounded_string(&caller, "caller"))?;
    name(&ownership::task_access(&p, &c))
}

/// `errorCodes()`: every error code an export can throw.
#[wasm_bindgen(js_name = errorCodes)]
pub fn error_codes() -> Vec<String> {
    longcall::error::ERROR_CODES
        .iter()
        .map(|c| (*c).into())
        .collect()
}

/// `violationRules()`: every protocol rule a peer can break, `[{rule, level}]`.
#[wasm_bindgen(js_name = violationRules)]
pub fn violation_rules() -> JsResult<JsValue> {
    #[derive(Serialize)]
    struct Row {
        rule: Rule,
        level: longcall::Level,
    }
    let rows: Vec<Row> = Rule::ALL
        .iter()
        .map(|&rule| Row {
            rule,
            level: rule.level(),
        })
        .collect();
    to_js(&rows)
}
