//! Outcomes: what a settled call means. The status alone is not the answer; read the payload
//! (O-1).
//!
//! [`task_outcome`] and [`job_outcome`] take their model's own status type; [`classify`] takes the
//! combined [`Status`] for the paths that carry any model.
//!
//! Rules (area O of `docs/rules.md`), as the table `OUTCOME_TABLE` below:
//!
//! * (O-2) 2026 `completed` carries `result`; `isError: true` there is a **tool error**, not
//!   success.
//! * (O-3) 2026 `failed` carries a JSON-RPC `error`: a **protocol failure**. It MUST NOT be used
//!   for `isError` results.
//! * (O-4) 2025 maps `isError: true` to `failed`; the payload comes from `tasks/result` (a tool
//!   result, or a JSON-RPC error).
//! * (O-5) `cancelled`/`canceled` is cancelled; a job's `failed` and `expired` are their own
//!   outcomes.
//! * (O-6) A handle that no longer resolves (`-32602`, 404, TTL passed) is **lost**.
//! * (O-7) A payload that contradicts its status (failed with a result, completed without one) is a
//!   violation, reported with the outcome, never silently accepted.

use serde::{Deserialize, Serialize};

use crate::error::Error;
use crate::model::{Model, TaskRevision};
use crate::status::{JobStatus, Status, TaskStatus};
use crate::violation::Rule;

/// What a settled call means for the person who started it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Outcome {
    /// The call produced its result.
    Succeeded = 0,
    /// The tool ran and reported a business failure (`isError: true`).
    ToolError = 1,
    /// The call ended with a JSON-RPC error, or the server broke the protocol so no result exists.
    ProtocolFailure = 2,
    /// The call was cancelled.
    Cancelled = 3,
    /// The job failed.
    Failed = 4,
    /// The job expired before it finished.
    Expired = 5,
    /// The handle no longer resolves: unknown or expired id, or its TTL passed unsettled.
    Lost = 6,
}

crate::tagged::unit_enum!(
    Outcome,
    "enum Outcome",
    [
        (Outcome::Succeeded, "succeeded"),
        (Outcome::ToolError, "tool_error"),
        (Outcome::ProtocolFailure, "protocol_failure"),
        (Outcome::Cancelled, "cancelled"),
        (Outcome::Failed, "failed"),
        (Outcome::Expired, "expired"),
        (Outcome::Lost, "lost"),
    ]
);

impl Outcome {
    /// The stable name.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Outcome::Succeeded => "succeeded",
            Outcome::ToolError => "tool_error",
            Outcome::ProtocolFailure => "protocol_failure",
            Outcome::Cancelled => "cancelled",
            Outcome::Failed => "failed",
            Outcome::Expired => "expired",
            Outcome::Lost => "lost",
        }
    }

    /// The numeric code used by the numbers-only WebAssembly path.
    #[must_use]
    pub const fn code(self) -> u8 {
        self as u8
    }
}

/// What came with a terminal status: whether a result (and its `isError`) and an error are present.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub struct Payload {
    /// `Some(is_error)` when a tool result is present.
    pub result: Option<bool>,
    /// `true` when a JSON-RPC error is present.
    pub error: bool,
}

// Read member by member from a `Value` object (`crate::tagged`): a derived reader would also
// compile an array form nobody writes.
impl<'de> Deserialize<'de> for Payload {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut f = crate::tagged::members(d, "struct Payload")?;
        Ok(Payload {
            result: f.opt("result")?,
            error: f.req("error")?,
        })
    }
}

impl core::fmt::Display for Payload {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Payload {
    /// How this payload reads in a violation's detail (also its `Display`).
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match (self.result, self.error) {
            (None, false) => "no result and no error",
            (Some(false), false) => "a result",
            (Some(true), false) => "an isError result",
            (None, true) => "an error",
            (Some(_), true) => "both a result and an error",
        }
    }
}

impl Payload {
    /// No payload.
    pub const NONE: Payload = Payload {
        result: None,
        error: false,
    };
    /// A result with `isError` absent or false.
    pub const OK: Payload = Payload {
        result: Some(false),
        error: false,
    };
    /// A result with `isError: true`.
    pub const TOOL_ERROR: Payload = Payload {
        result: Some(true),
        error: false,
    };
    /// A JSON-RPC error.
    pub const ERROR: Payload = Payload {
        result: None,
        error: true,
    };
}

/// Which payload shape a row matches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    /// Any payload.
    Any,
    /// A result with `isError` false and no error.
    Ok,
    /// A result with `isError: true` and no error.
    ToolError,
    /// An error and no result.
    Error,
    /// Nothing at all.
    Nothing,
    /// Both a result and an error.
    Both,
}

impl Shape {
    const fn of(p: Payload) -> Shape {
        match (p.result, p.error) {
            (Some(_), true) => Shape::Both,
            (Some(false), false) => Shape::Ok,
            (Some(true), false) => Shape::ToolError,
            (None, true) => Shape::Error,
            (None, false) => Shape::Nothing,
        }
    }

    const fn matches(self, p: Payload) -> bool {
        matches!(self, Shape::Any) || self as u8 == Shape::of(p) as u8
    }
}

/// One row: for this model and terminal status, a payload of this shape means this outcome
/// (and breaks this rule, when it should not have been sent).
pub(crate) type OutcomeRow = (Model, Status, Shape, Outcome, Option<Rule>);

const RCS: Option<Rule> = Some(Rule::ResultContradictsStatus);

/// The outcome table. The first matching row wins.
#[rustfmt::skip]
pub(crate) const OUTCOME_TABLE: &[OutcomeRow] = &[
    // 2026: the result rides in tasks/get.
    (Model::Task2026, Status::Completed, Shape::Ok,        Outcome::Succeeded,       None),
    (Model::Task2026, Status::Completed, Shape::ToolError, Outcome::ToolError,       None),
    (Model::Task2026, Status::Completed, Shape::Both,      Outcome::ProtocolFailure, RCS),
    (Model::Task2026, Status::Completed, Shape::Error,     Outcome::ProtocolFailure, RCS),
    (Model::Task2026, Status::Completed, Shape::Nothing,   Outcome::ProtocolFailure, RCS),
    (Model::Task2026, Status::Failed,    Shape::Error,     Outcome::ProtocolFailure, None),
    (Model::Task2026, Status::Failed,    Shape::ToolError, Outcome::ToolError,       RCS),
    (Model::Task2026, Status::Failed,    Shape::Any,       Outcome::ProtocolFailure, RCS),
    (Model::Task2026, Status::Cancelled, Shape::Nothing,   Outcome::Cancelled,       None),
    (Model::Task2026, Status::Cancelled, Shape::Any,       Outcome::Cancelled,       RCS),
    // 2025: the payload is what tasks/result answered. isError should map to failed (O-12: the
    // revision's lowercase should), so a completed task with an isError result is a SHOULD.
    (Model::Task2025, Status::Completed, Shape::Ok,        Outcome::Succeeded,       None),
    (Model::Task2025, Status::Completed, Shape::ToolError, Outcome::ToolError,       Some(Rule::ToolErrorNotFailed)),
    (Model::Task2025, Status::Completed, Shape::Error,     Outcome::ProtocolFailure, RCS),
    (Model::Task2025, Status::Completed, Shape::Any,       Outcome::ProtocolFailure, RCS),
    (Model::Task2025, Status::Failed,    Shape::ToolError, Outcome::ToolError,       None),
    (Model::Task2025, Status::Failed,    Shape::Error,     Outcome::ProtocolFailure, None),
    (Model::Task2025, Status::Failed,    Shape::Ok,        Outcome::ProtocolFailure, RCS),
    (Model::Task2025, Status::Failed,    Shape::Any,       Outcome::ProtocolFailure, None),
    (Model::Task2025, Status::Cancelled, Shape::Any,       Outcome::Cancelled,       None),
    // Jobs: the status decides; the result or error body is the host's to show.
    (Model::Job,      Status::Completed, Shape::Any,       Outcome::Succeeded,       None),
    (Model::Job,      Status::Failed,    Shape::Any,       Outcome::Failed,          None),
    (Model::Job,      Status::Canceled,  Shape::Any,       Outcome::Cancelled,       None),
    (Model::Job,      Status::Expired,   Shape::Any,       Outcome::Expired,         None),
];

/// Whether the outcome of a terminal status needs a separate fetch before it can be classified:
/// a 2025 task's result comes from `tasks/result`, never from `tasks/get`.
#[must_use]
pub const fn needs_result_fetch(model: Model, status: Status) -> bool {
    matches!(model, Model::Task2025) && matches!(status, Status::Completed | Status::Failed)
}

/// The first row of [`OUTCOME_TABLE`] for `model`, `status` and `payload`.
fn lookup(model: Model, status: Status, payload: Payload) -> Option<(Outcome, Option<Rule>)> {
    OUTCOME_TABLE
        .iter()
        .find(|(m, s, shape, _, _)| *m == model && *s == status && shape.matches(payload))
        .map(|&(_, _, _, outcome, rule)| (outcome, rule))
}

/// The outcome of a task of `revision` settled in `status` with `payload`, and the rule the
/// payload broke, if any; `None` while the status is not terminal.
///
/// ```
/// use longcall::model::TaskRevision;
/// use longcall::outcome::{task_outcome, Outcome, Payload};
/// use longcall::status::TaskStatus;
/// let o = task_outcome(TaskRevision::Mcp2026, TaskStatus::Completed, Payload::TOOL_ERROR);
/// assert_eq!(o, Some((Outcome::ToolError, None)));
/// assert_eq!(task_outcome(TaskRevision::Mcp2026, TaskStatus::Working, Payload::NONE), None);
/// ```
#[must_use]
pub fn task_outcome(
    revision: TaskRevision,
    status: TaskStatus,
    payload: Payload,
) -> Option<(Outcome, Option<Rule>)> {
    lookup(revision.into(), status.status(), payload)
}

/// The outcome of a job settled in `status` (the status decides; the body is the host's to
/// show); `None` while the status is not terminal.
///
/// ```
/// use longcall::outcome::{job_outcome, Outcome};
/// use longcall::status::JobStatus;
/// assert_eq!(job_outcome(JobStatus::Expired), Some(Outcome::Expired));
/// assert_eq!(job_outcome(JobStatus::Running), None);
/// ```
#[must_use]
pub fn job_outcome(status: JobStatus) -> Option<Outcome> {
    lookup(Model::Job, status.status(), Payload::NONE).map(|(outcome, _)| outcome)
}

/// Classifies a settled call, for a status in the combined [`Status`] ([`task_outcome`] or
/// [`job_outcome`]). Returns the outcome and the rule the payload broke, if any.
///
/// ```
/// use longcall::outcome::{classify, Outcome, Payload};
/// use longcall::{Model, Status};
/// let (o, v) = classify(Model::Task2026, Status::Completed, Payload::TOOL_ERROR).unwrap();
/// assert_eq!((o, v), (Outcome::ToolError, None));
/// let (o, v) = classify(Model::Task2025, Status::Failed, Payload::TOOL_ERROR).unwrap();
/// assert_eq!((o, v), (Outcome::ToolError, None));
/// ```
///
/// Errors: a status of another model, or a status that is not terminal.
pub fn classify(
    model: Model,
    status: Status,
    payload: Payload,
) -> Result<(Outcome, Option<Rule>), Error> {
    let not_in_model = || Error::StatusNotInModel { model, status };
    let found = match model.task_revision() {
        Some(revision) => task_outcome(revision, status.task().ok_or_else(not_in_model)?, payload),
        None => job_outcome(status.job().ok_or_else(not_in_model)?).map(|o| (o, None)),
    };
    found.ok_or_else(|| Error::invalid_input("status", "only a terminal status has an outcome"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHAPES: [Payload; 5] = [
        Payload::NONE,
        Payload::OK,
        Payload::TOOL_ERROR,
        Payload::ERROR,
        Payload {
            result: Some(false),
            error: true,
        },
    ];

    #[test]
    fn every_terminal_status_and_payload_has_an_outcome() {
        for model in Model::ALL {
            for &status in Status::of(model) {
                for p in SHAPES {
                    let got = classify(model, status, p);
                    assert_eq!(got.is_ok(), status.is_terminal(), "{model} {status} {p:?}");
                }
            }
        }
    }

    #[test]
    fn every_row_is_reachable() {
        let example = |shape: Shape| match shape {
            Shape::Any | Shape::Nothing => Payload::NONE,
            Shape::Ok => Payload::OK,
            Shape::ToolError => Payload::TOOL_ERROR,
            Shape::Error => Payload::ERROR,
            Shape::Both => Payload {
                result: Some(true),
                error: true,
            },
        };
        for (i, &(m, s, shape, outcome, rule)) in OUTCOME_TABLE.iter().enumerate() {
            // A row shadowed by an earlier one is dead data; Any rows are checked by a shape no
            // earlier row of the same status takes.
            let p = if shape == Shape::Any {
                SHAPES
                    .into_iter()
                    .find(|&p| {
                        !OUTCOME_TABLE[..i]
                            .iter()
                            .any(|r| r.0 == m && r.1 == s && r.2.matches(p))
                    })
                    .unwrap_or(Payload::NONE)
            } else {
                example(shape)
            };
            assert_eq!(classify(m, s, p).unwrap(), (outcome, rule), "row {i}");
        }
    }

    #[test]
    fn named_rules() {
        use Outcome::*;
        let c = |m, s, p| classify(m, s, p).unwrap();
        assert_eq!(
            c(Model::Task2026, Status::Completed, Payload::OK),
            (Succeeded, None)
        );
        assert_eq!(
            c(Model::Task2026, Status::Failed, Payload::ERROR),
            (ProtocolFailure, None)
        );
        assert_eq!(c(Model::Task2026, Status::Completed, Payload::NONE).1, RCS);
        assert_eq!(
            c(Model::Task2026, Status::Failed, Payload::TOOL_ERROR),
            (ToolError, RCS)
        );
        assert_eq!(
            c(Model::Task2025, Status::Failed, Payload::TOOL_ERROR),
            (ToolError, None)
        );
        assert_eq!(
            c(Model::Job, Status::Expired, Payload::NONE),
            (Expired, None)
        );
        assert_eq!(
            c(Model::Job, Status::Canceled, Payload::NONE),
            (Cancelled, None)
        );
        assert!(needs_result_fetch(Model::Task2025, Status::Failed));
        assert!(!needs_result_fetch(Model::Task2026, Status::Failed));
        assert!(classify(Model::Job, Status::Cancelled, Payload::NONE).is_err());
    }
}
