//! The code tables of the numbers-only path, each an array of the core's own values whose
//! position is the number on the boundary. `pkg/codes.js` and the d.ts unions are generated from
//! [`code_tables`] (`pkg/scripts/codes.mjs`, run by the build; `npm test` fails on drift), so no
//! name or number is written a second time in JavaScript. `code_tables` is in the tools module
//! (`longcall/vectors`), not in the ones pages download: they get the tables from `codes.js`.

#[allow(unused_imports)]
use crate::prelude::*;

use longcall::cancel::JobErrorCode;
use longcall::tracker::{RequestKind, StopReason};
use longcall::Model;

/// Request kinds by code (`send` outputs, `fastRequestFailed`).
pub const REQUEST_KINDS: [RequestKind; 5] = [
    RequestKind::Get,
    RequestKind::Cancel,
    RequestKind::Update,
    RequestKind::FetchResult,
    RequestKind::ContinueCall,
];

/// Why watching stopped, by code (`stopped` outputs).
pub const STOP_REASONS: [StopReason; 5] = [
    StopReason::MaxPolls,
    StopReason::Deadline,
    StopReason::HostStopped,
    StopReason::CreateUnanswered,
    StopReason::AnswerTooLarge,
];

/// Fails to compile when the core gains a request kind or stop reason that the tables above do
/// not list yet: add it there (at the end, so existing numbers keep their meaning) and here.
#[allow(dead_code)]
const fn every_variant_is_listed(k: RequestKind, r: StopReason) {
    match k {
        RequestKind::Get
        | RequestKind::Cancel
        | RequestKind::Update
        | RequestKind::FetchResult
        | RequestKind::ContinueCall => {}
    }
    match r {
        StopReason::MaxPolls
        | StopReason::Deadline
        | StopReason::HostStopped
        | StopReason::CreateUnanswered
        | StopReason::AnswerTooLarge => {}
    }
}

/// Sume cancel error codes by code (`fastCancelAnswered` kind 4, `b`).
pub const JOB_ERROR_CODES: [JobErrorCode; 5] = [
    JobErrorCode::JobGenerationAlreadyStarted,
    JobErrorCode::JobNotCancelable,
    JobErrorCode::NotFound,
    JobErrorCode::RateLimitExceeded,
    JobErrorCode::Other,
];

/// Output kinds of the numbers-only path, by code (the first number of each triple): the `type`
/// of the structured output (a test checks them against the core's serde names).
pub const OUTPUT_KINDS: [&str; 9] = [
    "idle",
    "wake_at",
    "send",
    "ask_user",
    "button",
    "status",
    "violation",
    "settled",
    "stopped",
];

/// A Sume cancel answer as a page reads it off the HTTP response: a 2xx status with the job's
/// status, or an error status with the envelope's `error.code` (any value: a code longcall does
/// not know, or none at all, as a 502 HTML page has, reads as `other`, never an error); status 0
/// for no answer at all (`fetch` threw), as `longcall/jobs` writes it.
#[cfg(feature = "client")]
pub fn job_cancel_answer(
    http_status: f64,
    status_or_code: &wasm_bindgen::JsValue,
) -> Result<longcall::cancel::CancelAnswer, longcall::Error> {
    use longcall::cancel::CancelAnswer;
    if http_status == 0.0 {
        return Ok(CancelAnswer::NoAnswer);
    }
    let http_status = crate::json::num(http_status)
        .and_then(|n| u16::try_from(n).ok())
        .filter(|n| (100..=599).contains(n))
        .ok_or_else(|| longcall::Error::invalid_input("httpStatus", "expected an HTTP status"))?;
    if (200..300).contains(&http_status) {
        // A success whose body names no status (empty, a proxy's HTML page) decides nothing:
        // the next status does (D-9, C-20), as the Open API reader has it.
        if status_or_code.is_undefined() || status_or_code.is_null() {
            return Ok(CancelAnswer::Ack);
        }
        let status = crate::args::status(Model::Job, status_or_code, "status")?.expect_job()?;
        return Ok(CancelAnswer::Job { status });
    }
    // The API's error code as written: a code longcall does not know is `other`, none at all
    // (undefined, null) too; a value that is no code (the whole error body, say) is the host's
    // mistake, which read as `other` would turn a "too late, it bills" answer into "try again".
    let code = match crate::args::name(status_or_code) {
        Some(s) => JobErrorCode::parse(&s),
        None if status_or_code.is_undefined() || status_or_code.is_null() => JobErrorCode::Other,
        None => return Err(crate::args::not_a_string("code", status_or_code)),
    };
    Ok(CancelAnswer::JobError {
        http_status,
        code,
        cancelable: None,
    })
}

/// `jobErrorCode(code)`: the {@link JOB_ERROR_CODES} index of a Sume error code; any code
/// longcall does not know (or a value that is not a string) is `other`. Never throws.
#[cfg(feature = "client")]
#[wasm_bindgen::prelude::wasm_bindgen(js_name = jobErrorCode)]
pub fn job_error_code(code: wasm_bindgen::JsValue) -> u8 {
    let parsed = crate::args::name(&code).map_or(JobErrorCode::Other, |s| JobErrorCode::parse(&s));
    code_of(&JOB_ERROR_CODES, &parsed) as u8
}

/// Position of `value` in `table`, as the number JavaScript sees.
#[cfg(feature = "client")]
pub fn code_of<T: PartialEq>(table: &[T], value: &T) -> f64 {
    table
        .iter()
        .position(|v| v == value)
        .map_or(f64::from(crate::args::BAD), |i| i as f64)
}

/// The value at a numeric code, for exact small integers only.
#[cfg(feature = "client")]
pub fn at<T: Copy>(table: &[T], code: f64) -> Option<T> {
    table.get(usize::from(crate::args::code(code)?)).copied()
}

#[cfg(feature = "vectors")]
mod export {
    use super::*;
    use longcall::cancel::{ButtonState, CancelVerdict, Window};
    use longcall::lifecycle::{Observation, Transition};
    use longcall::outcome::Outcome;
    use longcall::Status;
    use serde::Serialize;
    use wasm_bindgen::prelude::*;

    use crate::errors::JsResult;

    /// A list as JSON text: the names serde writes for `T`, through the text writer the module
    /// has anyway (a `json!` tree of `serde_json::to_value`s was 1.6 KB more code).
    fn names<T: Serialize>(values: &[T]) -> String {
        serde_json::to_string(values).unwrap_or_default()
    }

    /// Values listed by their numeric `code()`, so the table's position is the code.
    fn by_code<T: Copy + Serialize>(values: &[T], code: impl Fn(T) -> u8) -> String {
        let mut sorted: Vec<T> = values.to_vec();
        sorted.sort_by_key(|v| code(*v));
        names(&sorted)
    }

    /// Every code table, and the name lists the types are generated from, as JSON text (keys
    /// in byte order, as a `serde_json::Map` writes them).
    pub fn tables_json() -> String {
        use Observation as O;
        use Transition as T;
        let strs = |it: &mut dyn Iterator<Item = &'static str>| names(&it.collect::<Vec<_>>());
        // In byte order of the keys, as a `serde_json::Map` writes them (a test checks it).
        let tables = [
            (
                "BUTTON_STATES",
                by_code(&ButtonState::ALL, ButtonState::code),
            ),
            (
                "CANCEL_VERDICTS",
                by_code(&CancelVerdict::ALL, CancelVerdict::code),
            ),
            ("CONFIG_KEYS", names(&crate::config::CONFIG_KEYS)),
            ("ERROR_CODES", names(longcall::error::ERROR_CODES)),
            ("JITTERS", names(&crate::config::JITTERS)),
            ("JOB_DIALECTS", names(&longcall::endpoint::JobDialect::ALL)),
            ("JOB_ERROR_CODES", names(&JOB_ERROR_CODES)),
            (
                "JOB_KINDS",
                strs(
                    &mut longcall::wire::sume_open::KIND_TABLE
                        .iter()
                        .map(|row| row.1),
                ),
            ),
            (
                "JOB_STATUSES",
                strs(&mut Status::of(Model::Job).iter().map(|s| s.as_str())),
            ),
            ("MODELS", strs(&mut Model::ALL.iter().map(|m| m.as_str()))),
            (
                "OBSERVATIONS",
                by_code(
                    &[
                        O::Advance,
                        O::Repeat,
                        O::Skipped,
                        O::Regression,
                        O::TerminalConflict,
                    ],
                    O::code,
                ),
            ),
            (
                "OUTCOMES",
                by_code(
                    &[
                        Outcome::Succeeded,
                        Outcome::ToolError,
                        Outcome::ProtocolFailure,
                        Outcome::Cancelled,
                        Outcome::Failed,
                        Outcome::Expired,
                        Outcome::Lost,
                    ],
                    Outcome::code,
                ),
            ),
            ("OUTPUT_KINDS", names(&OUTPUT_KINDS)),
            ("POLL_KEYS", names(&crate::config::POLL_KEYS)),
            ("REQUEST_KINDS", names(&REQUEST_KINDS)),
            (
                "RULES",
                strs(&mut longcall::Rule::ALL.iter().map(|r| r.code())),
            ),
            (
                "STATUSES",
                strs(&mut Status::ALL.iter().map(|s| s.as_str())),
            ),
            ("STOP_REASONS", names(&STOP_REASONS)),
            (
                "TASK_STATUSES",
                strs(&mut Status::of(Model::Task2026).iter().map(|s| s.as_str())),
            ),
            (
                "TRANSITIONS",
                by_code(
                    &[T::Allowed, T::Repeat, T::Forbidden, T::FromTerminal],
                    T::code,
                ),
            ),
            (
                "WINDOWS",
                by_code(
                    &[Window::Open, Window::Started, Window::Terminal],
                    Window::code,
                ),
            ),
        ];
        let mut out = String::from("{");
        for (i, (key, list)) in tables.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push('"');
            out.push_str(key);
            out.push_str("\":");
            out.push_str(list);
        }
        out.push('}');
        out
    }

    /// `codeTables()`: every code table of the numbers-only path and the name lists of the
    /// package's types (statuses, button states, error codes, ...), straight from the core's
    /// types. The package's `codes.js` and type unions are generated from it.
    #[wasm_bindgen(js_name = codeTables)]
    pub fn code_tables() -> JsResult<JsValue> {
        js_sys::JSON::parse(&tables_json())
    }
}

#[cfg(feature = "vectors")]
pub use export::{code_tables, tables_json};

#[cfg(test)]
mod tests {
    use super::*;
    use longcall::cancel::ButtonState;
    use longcall::tracker::{Output, Request};
    use longcall::Status;

    #[test]
    fn output_kinds_are_the_serde_types() {
        let samples = [
            Output::Idle,
            Output::WakeAt { at: 1 },
            Output::Send {
                request: Request::Get { handle: "t".into() },
            },
            Output::AskUser {
                key: "k".into(),
                request: serde_json::Value::Null.into(),
                call: false,
            },
            Output::Button {
                state: ButtonState::Available,
            },
            Output::Status {
                status: Status::Queued,
            },
        ];
        for (i, o) in samples.iter().enumerate() {
            let v = serde_json::to_value(o).unwrap();
            assert_eq!(v["type"], OUTPUT_KINDS[i]);
        }
    }

    #[test]
    fn codes_are_positions() {
        for (i, k) in REQUEST_KINDS.iter().enumerate() {
            assert_eq!(code_of(&REQUEST_KINDS, k), i as f64);
            assert_eq!(at(&REQUEST_KINDS, i as f64), Some(*k));
        }
        assert_eq!(at(&JOB_ERROR_CODES, 5.0), None);
        assert_eq!(at(&JOB_ERROR_CODES, 0.5), None);
    }

    #[cfg(feature = "vectors")]
    #[test]
    fn tables_are_complete() {
        let v: serde_json::Value = serde_json::from_str(&tables_json()).unwrap();
        assert_eq!(v["BUTTON_STATES"][3], "acknowledged_pending");
        assert_eq!(v["STATUSES"].as_array().unwrap().len(), Status::ALL.len());
        assert!(v["ERROR_CODES"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c == "limit_reached"));
        // The text is the Map's own writing: keys in byte order.
        assert_eq!(v.to_string(), tables_json());
    }
}
