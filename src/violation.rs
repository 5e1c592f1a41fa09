//! Protocol violations: what a peer did that the rules forbid. They are observations, not errors
//! (S-5): the tracker reports them as outputs and keeps working, and `longcall check` lists them.

use alloc::string::String;
use core::fmt;

use serde::{Deserialize, Serialize};

/// How strongly the broken rule is worded in its source.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    /// A SHOULD (or our documented choice): `longcall check` warns, `--strict` fails.
    Should,
    /// A MUST: `longcall check` fails.
    Must,
}

crate::tagged::unit_enum!(
    Level,
    "enum Level",
    [(Level::Should, "should"), (Level::Must, "must")]
);

impl Level {
    /// The stable name (`must`, `should`).
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Level::Should => "should",
            Level::Must => "must",
        }
    }
}

macro_rules! rules {
    ($( $(#[$doc:meta])* $variant:ident = $code:literal, $level:ident; )*) => {
        /// A rule a peer can break. Codes are stable.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
        #[serde(rename_all = "snake_case")]
        #[non_exhaustive]
        pub enum Rule {
            $( $(#[$doc])* $variant, )*
        }

        impl Rule {
            /// Every rule.
            pub const ALL: &'static [Rule] = &[$(Rule::$variant,)*];

            /// The stable code (snake case).
            pub const fn code(self) -> &'static str {
                match self { $(Rule::$variant => $code,)* }
            }

            /// MUST or SHOULD.
            pub const fn level(self) -> Level {
                match self { $(Rule::$variant => Level::$level,)* }
            }
        }
    };
}

crate::tagged::unit_enum!(Rule, "enum Rule", Rule::ALL, Rule::code);

rules! {
    /// A status sequence no allowed path explains (`processing → queued`).
    IllegalTransition = "illegal_transition", Must;
    /// A different status after a terminal one; the first terminal status stands.
    TerminalConflict = "terminal_conflict", Must;
    /// A 2025 task that was not created `working`.
    BadSeed = "bad_seed", Must;
    /// A status string the model does not have.
    UnknownStatus = "unknown_status", Must;
    /// A payload that contradicts its status (failed with a result, completed without one, ...).
    ResultContradictsStatus = "result_contradicts_status", Must;
    /// A cancel answer the revision does not allow (2025 cancel not answered `cancelled`, ...).
    CancelAnswerBreaksRevision = "cancel_answer_breaks_revision", Must;
    /// Cancelling a terminal 2026 task answered with an error instead of the idempotent ack.
    CancelTerminalNotAcked = "cancel_terminal_not_acked", Should;
    /// An input key asked again after it was answered.
    InputKeyReused = "input_key_reused", Must;
    /// The client answered the same input key twice.
    InputAnsweredTwice = "input_answered_twice", Should;
    /// The client polled sooner than the server's interval.
    PollTooFast = "poll_too_fast", Should;
    /// The original paid or mutating request was sent again after a local timeout.
    ResubmitAfterTimeout = "resubmit_after_timeout", Must;
    /// A `tasks/*` request over HTTP without `Mcp-Name`, or with one that differs from `taskId`.
    McpNameHeader = "mcp_name_header", Must;
    /// A `resultType` that is wrong for the message (`task` on `tasks/get`, ...).
    WrongResultType = "wrong_result_type", Must;
    /// A 2026 `tasks/*` request without the tasks capability in its `_meta`.
    MissingCapability = "missing_capability", Must;
    /// A task handle returned to a request that did not declare the tasks capability.
    UnsolicitedTask = "unsolicited_task", Must;
    /// A method that the revision removed or never had (`tasks/result` on 2026).
    WrongRevisionMethod = "wrong_revision_method", Must;
    /// A required field missing or of the wrong type.
    MissingField = "missing_field", Must;
    /// A notification for a task the client does not know. Kept or ignored, never fatal.
    UnknownTaskNotification = "unknown_task_notification", Should;
    /// A JSON-RPC answer whose id names no request in flight (JSON-RPC 2.0: a response carries
    /// the id of the request it answers).
    UnknownAnswerId = "unknown_answer_id", Must;
    /// An answer that cannot be read (not JSON, not a JSON-RPC response, a shape no rule
    /// explains): the endpoint treats it as no answer to that request.
    UnreadableAnswer = "unreadable_answer", Must;
    /// A `notifications/cancelled` naming a request that is not in progress (already answered,
    /// or never sent by the side that cancels it).
    CancelNotInProgress = "cancel_not_in_progress", Must;
    /// A task the server just created answered "not found" to its creator before it settled and
    /// before its TTL ran out (rule X-1 in [`crate::probe_rules`]).
    CreatedTaskNotFound = "created_task_not_found", Must;
    /// A task reported `cancelled` that nobody asked to cancel, with no `statusMessage` saying
    /// why the server decided so (rule X-3).
    CancelledUnasked = "cancelled_unasked", Should;
    /// A request for another principal's task answered differently from one for an id that was
    /// never issued, which tells the caller the task exists (rule X-4).
    ForeignIdDistinguishable = "foreign_id_distinguishable", Must;
    /// A poll sent no sooner than the server's own interval refused as too fast (HTTP 429)
    /// (rule X-5).
    PollRefusedAtFloor = "poll_refused_at_floor", Should;
    /// A job the server just handed out answered 404 to its own key before it was seen settled
    /// (rule X-7 in [`crate::probe_rules`]).
    CreatedJobNotFound = "created_job_not_found", Must;
    /// A submit repeating an `Idempotency-Key` answered with another job than the one the key
    /// first made (rule X-8).
    IdempotencyKeyNotReplayed = "idempotency_key_not_replayed", Must;
    /// A job canceled while queued whose cancel answer says it was not refunded (rule X-11).
    CancelNotRefunded = "cancel_not_refunded", Must;
    /// A 429 answer without `Retry-After`: the client cannot know when to come back (rule X-12).
    RetryAfterMissing = "retry_after_missing", Should;
    /// A `jobs_wait` answered as satisfied (`timed_out: false`) whose jobs do not meet its
    /// `wait_for` condition, or that does not list exactly the ids asked (rule X-14).
    WaitConditionBroken = "wait_condition_broken", Must;
    /// A 2025 task that ended `completed` although its `tasks/result` is a tool error
    /// (`isError: true`): the revision says such a task should reach `failed` (rule O-12).
    ToolErrorNotFailed = "tool_error_not_failed", Should;
}

impl Rule {
    /// The rule an answer breaks that cannot be read at all (E-42): a status its model does not
    /// have, whether no model speaks it (`running`) or another one does (`canceled` for an MCP
    /// task), is [`Rule::UnknownStatus`]; anything else is [`Rule::MissingField`].
    ///
    /// ```
    /// use longcall::{Error, Model, Rule, Status};
    /// let foreign = Error::StatusNotInModel { model: Model::Task2026, status: Status::Queued };
    /// assert_eq!(Rule::of_unreadable(&foreign), Rule::UnknownStatus);
    /// ```
    #[must_use]
    pub fn of_unreadable(e: &crate::Error) -> Rule {
        match e {
            crate::Error::UnknownStatus { .. } | crate::Error::StatusNotInModel { .. } => {
                Rule::UnknownStatus
            }
            _ => Rule::MissingField,
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// One broken rule, with what was seen.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Violation {
    /// The rule.
    pub rule: Rule,
    /// MUST or SHOULD (copied from the rule so JSON readers need no table).
    pub level: Level,
    /// What was seen, for a person.
    pub detail: String,
}

// Read member by member from a `Value` object (`crate::tagged`): a derived reader would also
// compile an array form nobody writes.
impl<'de> Deserialize<'de> for Violation {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut f = crate::tagged::members(d, "struct Violation")?;
        Ok(Violation {
            rule: f.req("rule")?,
            level: f.req("level")?,
            detail: f.req("detail")?,
        })
    }
}

impl Violation {
    /// A violation of `rule`, with what was seen.
    pub fn new(rule: Rule, detail: impl Into<String>) -> Violation {
        Violation {
            rule,
            level: rule.level(),
            detail: detail.into(),
        }
    }
}
