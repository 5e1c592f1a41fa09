//! What every cancel answer means, per model, as the table `ANSWER_TABLE` below.
//!
//! Rules (area C of `docs/rules.md`):
//!
//! * **task-2026** (C-2, C-3, C-4) `tasks/cancel` answers an empty ack `{resultType: "complete"}`.
//!   It is **not** a promise: the task may stay working and end completed or failed. Keep
//!   observing. A terminal task gets the same ack (idempotent). `-32602`: unknown or expired id.
//! * **task-2025** (C-5, C-6) answers the task, which MUST already be `cancelled`. Cancelling a
//!   terminal task MUST be rejected with `-32602`, the same code as an unknown id, so `-32602`
//!   means "finished first, or unknown": an observation decides.
//! * **job** (C-7, C-8, C-9, C-10) `jobs_cancel`: 200 with the canceled job (also when it was
//!   canceled already: idempotent); 409 `job_generation_already_started` with `details.cancelable:
//!   false` once generation started (the job runs and bills: show "still running", keep waiting,
//!   never resubmit); 409 `job_not_cancelable` once terminal; 404 `not_found` for an unknown id
//!   **or another member's job**, indistinguishable by design.
//! * (C-11) Any other error (rate limit, 5xx, transport) means the cancel did not take effect.
//! * (C-12) After **any** answer one confirming observation is due: a cancel sent from a stale
//!   snapshot can race the worker, and the server's status decides.

use serde::{Deserialize, Serialize};

use crate::model::Model;
use crate::status::{JobStatus, TaskStatus};
use crate::text::Text;
use crate::view::codes;
use crate::violation::Rule;

pub use crate::job_vocab::JobErrorCode;

/// A cancel answer as the wire said it (parsed by [`crate::wire`], or built by a host).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum CancelAnswer {
    /// A success that names no status: 2026's empty ack `{resultType: "complete"}`, or a job
    /// cancel answered 2xx with a body that says nothing of the job (an empty body, a proxy's
    /// page), which decides nothing (C-20).
    Ack,
    /// 2025: the task after cancellation.
    Task {
        /// Its status.
        status: TaskStatus,
    },
    /// A JSON-RPC error.
    RpcError {
        /// The error code.
        code: i64,
    },
    /// Job: 200 with the job.
    Job {
        /// Its status.
        status: JobStatus,
    },
    /// Job: an error envelope.
    JobError {
        /// The HTTP status.
        http_status: u16,
        /// `error.code`.
        code: JobErrorCode,
        /// `error.details.cancelable`, when present.
        #[serde(default)]
        cancelable: Option<bool>,
    },
    /// No answer: a transport error or a local timeout. The cancel may or may not have arrived.
    NoAnswer,
}

impl CancelAnswer {
    /// Appends how this answer reads in a violation's detail (also its `Display`).
    pub(crate) fn describe(&self, t: Text) -> Text {
        match self {
            CancelAnswer::Ack => t.s("a success that names no status"),
            CancelAnswer::Task { status } => t.s("the task, ").s(status.as_str()),
            CancelAnswer::RpcError { code } => t.s("JSON-RPC error ").i(*code),
            CancelAnswer::Job { status } => t.s("the job, ").s(status.as_str()),
            CancelAnswer::JobError {
                http_status, code, ..
            } => t
                .s("HTTP ")
                .n(u64::from(*http_status))
                .s(" ")
                .s(code.as_str()),
            CancelAnswer::NoAnswer => t.s("no answer"),
        }
    }
}

impl core::fmt::Display for CancelAnswer {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(&self.describe(Text::new()).done())
    }
}

/// What a cancel answer means.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum CancelVerdict {
    /// 2026: accepted, not a promise. Keep observing until a terminal status.
    Acknowledged = 0,
    /// The call is cancelled.
    Cancelled = 1,
    /// Job: generation started. It runs to completion and bills; keep waiting, never resubmit.
    TooLate = 2,
    /// The call was already terminal.
    AlreadyFinished = 3,
    /// 2025 `-32602`: finished first, or unknown. An observation decides.
    Rejected = 4,
    /// The handle is unknown (or another member's): it no longer resolves.
    NotFound = 5,
    /// The cancel did not take effect (rate limit, server or transport error). It may be retried.
    RequestFailed = 6,
    /// The answer breaks the revision's rule. An observation decides.
    BreaksRevision = 7,
}

crate::tagged::unit_enum!(
    CancelVerdict,
    "enum CancelVerdict",
    &CancelVerdict::ALL,
    CancelVerdict::as_str
);

impl CancelVerdict {
    /// Every verdict, in code order.
    pub const ALL: [CancelVerdict; 8] = [
        CancelVerdict::Acknowledged,
        CancelVerdict::Cancelled,
        CancelVerdict::TooLate,
        CancelVerdict::AlreadyFinished,
        CancelVerdict::Rejected,
        CancelVerdict::NotFound,
        CancelVerdict::RequestFailed,
        CancelVerdict::BreaksRevision,
    ];

    /// The verdict with this stable name.
    #[must_use]
    pub fn parse(name: &str) -> Option<CancelVerdict> {
        CancelVerdict::ALL.into_iter().find(|v| v.as_str() == name)
    }

    /// The stable name.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            CancelVerdict::Acknowledged => "acknowledged",
            CancelVerdict::Cancelled => "cancelled",
            CancelVerdict::TooLate => "too_late",
            CancelVerdict::AlreadyFinished => "already_finished",
            CancelVerdict::Rejected => "rejected",
            CancelVerdict::NotFound => "not_found",
            CancelVerdict::RequestFailed => "request_failed",
            CancelVerdict::BreaksRevision => "breaks_revision",
        }
    }

    /// The numeric code used by the numbers-only WebAssembly path.
    #[must_use]
    pub const fn code(self) -> u8 {
        self as u8
    }

    /// The rule the peer broke, when the verdict records one.
    #[must_use]
    pub const fn violation(self) -> Option<Rule> {
        match self {
            CancelVerdict::BreaksRevision => Some(Rule::CancelAnswerBreaksRevision),
            _ => None,
        }
    }
}

/// Which answers a row matches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Pattern {
    /// The 2026 ack.
    Ack,
    /// A task in this status.
    Task(TaskStatus),
    /// A task in any status.
    AnyTask,
    /// A JSON-RPC error with this code.
    Rpc(i64),
    /// Any JSON-RPC error.
    AnyRpc,
    /// A job in this status.
    Job(JobStatus),
    /// A job in any status.
    AnyJob,
    /// A job error with this code.
    JobError(JobErrorCode),
    /// No answer at all.
    NoAnswer,
    /// Anything.
    Any,
}

impl Pattern {
    fn matches(self, a: CancelAnswer) -> bool {
        use CancelAnswer as A;
        match (self, a) {
            (Pattern::Any, _) => true,
            (Pattern::Ack, A::Ack) | (Pattern::NoAnswer, A::NoAnswer) => true,
            (Pattern::Task(s), A::Task { status }) => s == status,
            (Pattern::AnyTask, A::Task { .. }) => true,
            (Pattern::Rpc(c), A::RpcError { code }) => c == code,
            (Pattern::AnyRpc, A::RpcError { .. }) => true,
            (Pattern::Job(s), A::Job { status }) => s == status,
            (Pattern::AnyJob, A::Job { .. }) => true,
            (
                Pattern::JobError(c),
                A::JobError {
                    code, cancelable, ..
                },
            ) => {
                // A "started" answer that claims the job is still cancelable contradicts itself.
                c == code
                    && !(c == JobErrorCode::JobGenerationAlreadyStarted && cancelable == Some(true))
            }
            _ => false,
        }
    }
}

/// One row: for this model, an answer matching this pattern means this verdict.
pub(crate) type AnswerRow = (Model, Pattern, CancelVerdict);

use CancelVerdict as V;

/// The cancel-answer table. The first matching row wins.
#[rustfmt::skip]
pub(crate) const ANSWER_TABLE: &[AnswerRow] = &[
    (Model::Task2026, Pattern::Ack,                                                 V::Acknowledged),
    (Model::Task2026, Pattern::Rpc(codes::INVALID_PARAMS),                          V::NotFound),
    (Model::Task2026, Pattern::AnyRpc,                                              V::RequestFailed),
    (Model::Task2026, Pattern::NoAnswer,                                            V::RequestFailed),
    (Model::Task2026, Pattern::Any,                                                 V::BreaksRevision),
    (Model::Task2025, Pattern::Task(TaskStatus::Cancelled),                         V::Cancelled),
    (Model::Task2025, Pattern::AnyTask,                                             V::BreaksRevision),
    (Model::Task2025, Pattern::Rpc(codes::INVALID_PARAMS),                          V::Rejected),
    (Model::Task2025, Pattern::AnyRpc,                                              V::RequestFailed),
    (Model::Task2025, Pattern::NoAnswer,                                            V::RequestFailed),
    (Model::Task2025, Pattern::Any,                                                 V::BreaksRevision),
    (Model::Job,      Pattern::Job(JobStatus::Canceled),                            V::Cancelled),
    (Model::Job,      Pattern::AnyJob,                                              V::BreaksRevision),
    (Model::Job,      Pattern::JobError(JobErrorCode::JobGenerationAlreadyStarted), V::TooLate),
    (Model::Job,      Pattern::JobError(JobErrorCode::JobNotCancelable),            V::AlreadyFinished),
    (Model::Job,      Pattern::JobError(JobErrorCode::NotFound),                    V::NotFound),
    (Model::Job,      Pattern::JobError(JobErrorCode::RateLimitExceeded),           V::RequestFailed),
    (Model::Job,      Pattern::JobError(JobErrorCode::Other),                       V::RequestFailed),
    (Model::Job,      Pattern::JobError(JobErrorCode::None),                        V::RequestFailed),
    (Model::Job,      Pattern::JobError(JobErrorCode::QueueFull),                   V::RequestFailed),
    (Model::Job,      Pattern::JobError(JobErrorCode::InsufficientCredits),         V::RequestFailed),
    (Model::Job,      Pattern::NoAnswer,                                            V::RequestFailed),
    (Model::Job,      Pattern::Any,                                                 V::BreaksRevision),
];

/// What a cancel answer means for a call of `model`.
///
/// ```
/// use longcall::cancel::{classify_answer, CancelAnswer, CancelVerdict, JobErrorCode};
/// use longcall::Model;
/// let started = CancelAnswer::JobError {
///     http_status: 409,
///     code: JobErrorCode::JobGenerationAlreadyStarted,
///     cancelable: Some(false),
/// };
/// assert_eq!(classify_answer(Model::Job, started), CancelVerdict::TooLate);
/// assert_eq!(classify_answer(Model::Task2026, CancelAnswer::Ack), CancelVerdict::Acknowledged);
/// ```
///
/// Every answer has a verdict: a task answer carries a task status and a job answer a job
/// status by type, and an answer of the other model's kind breaks the revision (C-5).
#[must_use]
pub fn classify_answer(model: Model, answer: CancelAnswer) -> CancelVerdict {
    ANSWER_TABLE
        .iter()
        .find(|(m, p, _)| *m == model && p.matches(answer))
        .map_or(CancelVerdict::BreaksRevision, |r| r.2)
}

// Read through `crate::tagged`, not serde's derived internally tagged support: the same JSON,
// far less WebAssembly.
impl<'de> Deserialize<'de> for CancelAnswer {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        const VARIANTS: &[&str] = &["ack", "task", "rpc_error", "job", "job_error", "no_answer"];
        let (tag, mut f) = crate::tagged::read(d, "kind", "internally tagged enum CancelAnswer")?;
        Ok(match tag.as_str() {
            "ack" => CancelAnswer::Ack,
            "task" => CancelAnswer::Task {
                status: f.req("status")?,
            },
            "rpc_error" => CancelAnswer::RpcError {
                code: f.req("code")?,
            },
            "job" => CancelAnswer::Job {
                status: f.req("status")?,
            },
            "job_error" => CancelAnswer::JobError {
                http_status: f.req("http_status")?,
                code: f.req("code")?,
                cancelable: f.opt("cancelable")?,
            },
            "no_answer" => CancelAnswer::NoAnswer,
            other => return Err(crate::tagged::unknown(other, VARIANTS)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use CancelAnswer as A;

    fn job_err(code: JobErrorCode, http: u16) -> CancelAnswer {
        A::JobError {
            http_status: http,
            code,
            cancelable: Some(false),
        }
    }

    /// Rule C-22: a code longcall does not know reads as `other` wherever an answer is read,
    /// the structured inputs too; only a code that is no string is refused.
    #[test]
    fn an_unknown_job_error_code_reads_as_other() {
        let read = |code: serde_json::Value| {
            serde_json::from_value::<CancelAnswer>(serde_json::json!(
                {"kind": "job_error", "http_status": 409, "code": code}
            ))
        };
        for (code, want) in [
            ("job_already_finishing", JobErrorCode::Other),
            ("", JobErrorCode::None),
            ("none", JobErrorCode::None),
            ("job_not_cancelable", JobErrorCode::JobNotCancelable),
        ] {
            let got = read(code.into()).unwrap();
            let want = A::JobError {
                http_status: 409,
                code: want,
                cancelable: None,
            };
            assert_eq!(got, want, "{code:?}");
        }
        assert!(read(42.into()).is_err());
    }

    #[test]
    fn seed_and_spec_answers() {
        let c = classify_answer;
        assert_eq!(c(Model::Task2026, A::Ack), V::Acknowledged);
        assert_eq!(
            c(Model::Task2026, A::RpcError { code: -32602 }),
            V::NotFound
        );
        assert_eq!(
            c(
                Model::Task2026,
                A::Task {
                    status: TaskStatus::Cancelled
                }
            ),
            V::BreaksRevision
        );
        assert_eq!(
            c(
                Model::Task2025,
                A::Task {
                    status: TaskStatus::Cancelled
                }
            ),
            V::Cancelled
        );
        assert_eq!(
            c(
                Model::Task2025,
                A::Task {
                    status: TaskStatus::Working
                }
            ),
            V::BreaksRevision
        );
        assert_eq!(
            c(Model::Task2025, A::RpcError { code: -32602 }),
            V::Rejected
        );
        assert_eq!(c(Model::Task2025, A::Ack), V::BreaksRevision);
        assert_eq!(
            c(
                Model::Job,
                A::Job {
                    status: JobStatus::Canceled
                }
            ),
            V::Cancelled
        );
        assert_eq!(
            c(
                Model::Job,
                A::Job {
                    status: JobStatus::Processing
                }
            ),
            V::BreaksRevision
        );
        assert_eq!(
            c(
                Model::Job,
                job_err(JobErrorCode::JobGenerationAlreadyStarted, 409)
            ),
            V::TooLate
        );
        assert_eq!(
            c(Model::Job, job_err(JobErrorCode::JobNotCancelable, 409)),
            V::AlreadyFinished
        );
        assert_eq!(
            c(Model::Job, job_err(JobErrorCode::NotFound, 404)),
            V::NotFound
        );
        assert_eq!(
            c(Model::Job, job_err(JobErrorCode::Other, 503)),
            V::RequestFailed
        );
        assert_eq!(c(Model::Job, A::NoAnswer), V::RequestFailed);
        let contradictory = A::JobError {
            http_status: 409,
            code: JobErrorCode::JobGenerationAlreadyStarted,
            cancelable: Some(true),
        };
        assert_eq!(c(Model::Job, contradictory), V::BreaksRevision);
    }

    #[test]
    fn every_row_matches_its_own_example_first_or_is_shadowed_by_design() {
        for (i, &(m, p, v)) in ANSWER_TABLE.iter().enumerate() {
            let example = match p {
                Pattern::Ack | Pattern::Any => A::Ack,
                Pattern::Task(status) => A::Task { status },
                Pattern::AnyTask => A::Task {
                    status: TaskStatus::Working,
                },
                Pattern::Rpc(code) => A::RpcError { code },
                Pattern::AnyRpc => A::RpcError { code: -32603 },
                Pattern::Job(status) => A::Job { status },
                Pattern::AnyJob => A::Job {
                    status: JobStatus::Queued,
                },
                Pattern::JobError(c) => job_err(c, 409),
                Pattern::NoAnswer => A::NoAnswer,
            };
            let first = ANSWER_TABLE
                .iter()
                .position(|(mm, pp, _)| *mm == m && pp.matches(example));
            if first == Some(i) {
                assert_eq!(classify_answer(m, example), v, "row {i}");
            } else {
                // Only catch-all rows may be shadowed for their example.
                assert_eq!(p, Pattern::Any, "row {i} is dead");
            }
        }
    }

    /// C-2, C-5, C-7: an answer of the other model's kind breaks the revision, never an error.
    #[test]
    fn answer_of_the_other_kind_breaks_the_revision() {
        let task = A::Task {
            status: TaskStatus::Cancelled,
        };
        let job = A::Job {
            status: JobStatus::Canceled,
        };
        assert_eq!(classify_answer(Model::Job, task), V::BreaksRevision);
        assert_eq!(classify_answer(Model::Task2025, job), V::BreaksRevision);
        assert_eq!(classify_answer(Model::Task2026, job), V::BreaksRevision);
    }
}
