//! Trackers: one sans-io state machine per watched task or job (str0m style).
//!
//! ```
//! use longcall::tracker::{Input, Output, Tracker, TrackerConfig};
//! use longcall::view::TaskView;
//! use longcall::{Model, Status};
//!
//! let mut t = Tracker::new(Model::Task2026, TrackerConfig::default())?;
//! let task = TaskView::new("task_1", Status::Working).with_poll_interval_ms(2_000);
//! t.handle_input(0, Input::TaskCreated { task })?; // the tools/call answer was a task
//! let wake = loop {
//!     match t.poll_output() {
//!         Output::Send { request } => { /* do the I/O; feed the answer back with handle_input */ }
//!         Output::AskUser { .. } => { /* show the prompt once; answer with Input::InputAnswered */ }
//!         Output::Button { state } => { /* render the cancel button */ }
//!         Output::Settled { .. } => { /* the verified final outcome, exactly once */ }
//!         Output::WakeAt { at } => break Some(at), // call handle_timeout(at) then, or on input
//!         Output::Idle => break None,               // nothing until the next input
//!         _ => {}
//!     }
//! };
//! assert_eq!(wake, Some(2_000)); // the server's interval is a floor (P-3)
//! # Ok::<(), longcall::Error>(())
//! ```
//!
//! [`Input`] is `#[non_exhaustive]` (hosts build it, new inputs arrive with new revisions);
//! [`Output`], [`Request`], [`RequestKind`] and [`StopReason`] are deliberately exhaustive: the
//! bindings map each variant to a numeric code, and a new one must fail their build, not fall
//! into a wildcard.
//!
//! **Every `handle_*` call may queue outputs; drain [`Tracker::poll_output`] after each one until
//! it returns [`Output::WakeAt`] or [`Output::Idle`].** The host owns every timer and all I/O.
//!
//! What a tracker guarantees, whatever the server does:
//!
//! * (P-3, P-4, P-6) it polls no sooner than the server's interval (a floor), the policy's global
//!   minimum, or a Retry-After, and never after its watch deadline;
//! * (L-6) it keeps the **first** terminal status and reports any later, different one as a
//!   violation;
//! * (I-1, I-2, I-3, I-6, I-7) it asks the user for each input key **once**, even when a poll right
//!   after `tasks/update` still shows the key, and never answers a key twice; after a cancel press
//!   it stops prompting;
//! * (C-2, C-8) after a 2026 cancel ack it keeps watching until a terminal status; after a job's
//!   409 `job_generation_already_started` it shows `too_late` and keeps waiting;
//! * (P-9, A-6) it never resubmits the original request: there is no output that could;
//! * (O-10, C-16) it settles exactly once, and "cancelled" only when a cancelled status was
//!   observed.
//!
//! Rules added with the endpoint, written once (the wire side is [`crate::endpoint::client`]):
//!
//! * **O-8 Born terminal.** A 2026 task created `completed` or `failed` is legal, but a
//!   `CreateTaskResult` is a `Task` with no `result` or `error`: one `tasks/get` is sent at once
//!   and its answer settles the call (no `result_contradicts_status`, no protocol failure).
//! * **C-19 A lost cancel may have worked.** A cancel whose answer was lost (or failed) reopens
//!   the button, but a cancelled status observed afterwards shows `cancelled`.
//! * **C-18 After a 409.** A job cancel answered 409 `job_generation_already_started` means the
//!   job is processing; a later `canceled` is `illegal_transition`, reported; the server's final
//!   word still settles the call.
//! * **O-11 2025 `tasks/result`.** It answers only once the task is terminal, and a tool result
//!   decides the status (`isError` → failed, else completed): it settles at once. A JSON-RPC error
//!   there waits for one `tasks/get` (a cancelled task's `tasks/result` is undefined).
//! * **E-12 Payloads.** `Settled` and the run record carry the result or error exactly as the
//!   server sent it, so no host extracts it. They are [`crate::Json`]: the record and the output
//!   share one value rather than each holding a copy.
//! * **E-3 Over-limit answers** stop watching with `answer_too_large` (never a hang).
//! * **E-8 MRTR.** An `InputRequiredResult` on `tools/call` asks each key of the round once (call
//!   inputs, their own namespace); when all are answered the continuation `tools/call` carries
//!   `inputResponses` and the server's `requestState`: the only re-send of a `tools/call`, not a
//!   resubmission. A continuation that gets no answer is the call unanswered. A key asked
//!   again in a later round is a new question (keys are unique within one round).
//! * **E-69 Still waiting.** A round with a `requestState` and no input requests asks nothing:
//!   its continuation goes out when the poll schedule says ([`Output::WakeAt`]), not at once.

mod input_de;
pub(crate) mod keys;
mod machine;
mod record;
mod tagged_de;

pub use machine::{Tracker, TrackerConfig};
pub use record::{RunRecord, MAX_RECORDED_VIOLATIONS};

use alloc::string::String;
use alloc::vec::Vec;

use serde::Serialize;

use crate::cancel::{ButtonState, CancelAnswer};
use crate::outcome::Outcome;
use crate::status::Status;
use crate::view::{InputRequest, JobView, RpcError, TaskView, ToolResult, Ttl};
use crate::violation::Violation;
use crate::Json;

/// Something that happened, handed to [`Tracker::handle_input`].
///
/// As JSON: `{"type": "task_polled", "task": {...}}` and so on (the variant name in snake case,
/// its fields beside it).
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Input {
    /// The creating request answered with a task handle (2026 flat or 2025 nested
    /// `CreateTaskResult`).
    TaskCreated {
        /// The task as created.
        task: TaskView,
    },
    /// The creating request answered with a plain result: the server chose not to make a task
    /// (O-9: it settles at once).
    CallResult {
        /// The tool result.
        result: ToolResult,
    },
    /// 2026 MRTR: the `tools/call` answered an `InputRequiredResult` (`resultType:
    /// "input_required"`): the server needs these inputs before it goes on, and gives back
    /// `requestState` to be echoed with them in the continuation `tools/call`.
    CallInputRequired {
        /// The input requests, key -> request (keys of their own namespace, not task keys);
        /// empty when the server asks nothing and sent a `requestState` (E-69).
        input_requests: Vec<InputRequest>,
        /// The server's `requestState`, echoed unchanged (absent when it sent none).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        request_state: Option<Json>,
    },
    /// The creating request answered with a JSON-RPC error.
    CallError {
        /// The error.
        error: RpcError,
    },
    /// The submit was accepted and the job exists.
    JobCreated {
        /// The job as accepted (normally `queued`).
        job: JobView,
    },
    /// The creating request got no answer (a local timeout, a lost response). The tracker never
    /// resubmits: it stops with [`StopReason::CreateUnanswered`], and the host reconciles.
    CreateUnanswered,
    /// A job submit was refused for good (a permanent refusal, rule A-4): no job exists, nothing
    /// is sent again, and the call settles `failed` with the server's error (E-11).
    SubmitRefused {
        /// The HTTP status of the refusal.
        http_status: u16,
        /// The API's error object (`{code, message, ...}`, the `error` of its envelope), as a
        /// failed job's error is; a JSON body without one as it came; absent when the body was
        /// not JSON.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<Json>,
    },
    /// A poll answered (`tasks/get`, `jobs_get`, or this job's entry in a `jobs_wait` answer).
    TaskPolled {
        /// What the server said.
        task: TaskView,
    },
    /// A job poll answered.
    JobPolled {
        /// What the server said.
        job: JobView,
    },
    /// A notification about the task (`notifications/tasks`, 2025 `notifications/tasks/status`):
    /// an extra observation, never a replacement for polling.
    TaskNotified {
        /// What the server said.
        task: TaskView,
    },
    /// 2025: `tasks/result` answered with a tool result.
    ResultFetched {
        /// The tool result.
        result: ToolResult,
    },
    /// The cancel request was answered.
    CancelAnswered {
        /// The answer.
        answer: CancelAnswer,
    },
    /// `tasks/update` was acknowledged.
    UpdateAcked,
    /// A request failed without a usable answer.
    RequestFailed {
        /// Which request.
        request: RequestKind,
        /// How it failed.
        failure: Failure,
    },
    /// The user pressed the cancel button.
    CancelPressed,
    /// The user answered input key `key`.
    InputAnswered {
        /// The key, exactly as the server sent it.
        key: String,
        /// The answer (`ElicitResult`, `CreateMessageResult`, ...).
        response: Json,
    },
    /// The host stops watching (an AbortSignal, a closed page). The call itself goes on: this is
    /// not a cancel and sends nothing (C-17).
    StopWatching,
    /// An answer arrived that is larger than the reader's limit ([`crate::wire::Limits`]), so
    /// what it says cannot be known. The tracker stops with [`StopReason::AnswerTooLarge`]
    /// (never a hang, never a guess); raise the limit and watch the handle again to read it.
    AnswerTooLarge {
        /// Which request it answered (`None`: the creating call).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        request: Option<RequestKind>,
        /// Its size in bytes.
        size: u64,
        /// The limit in force, in bytes.
        limit: u64,
    },
}

/// A poll answer reduced to numbers, for [`Tracker::handle_polled`]: what the rules read of a
/// `tasks/get` or `jobs_get` answer, without the ids and payload bodies that would need allocating.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Polled {
    /// The status.
    pub status: Status,
    /// Tasks: `pollIntervalMs` / `pollInterval`, when the answer carried it.
    pub poll_interval_ms: Option<u64>,
    /// Tasks: `ttlMs` as the answer stated it; [`Ttl::NotGiven`] keeps the TTL in force (P-7).
    pub ttl_ms: Ttl,
    /// Tasks: whether a result (and its `isError`) and an error came with a terminal status.
    pub payload: crate::outcome::Payload,
}

/// Which request an answer or failure belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RequestKind {
    /// `tasks/get` / `jobs_get`.
    Get,
    /// `tasks/cancel` / `jobs_cancel`.
    Cancel,
    /// `tasks/update`.
    Update,
    /// 2025 `tasks/result`.
    FetchResult,
    /// 2026 MRTR continuation `tools/call`.
    ContinueCall,
}

crate::tagged::unit_enum!(
    RequestKind,
    "enum RequestKind",
    [
        (RequestKind::Get, "get"),
        (RequestKind::Cancel, "cancel"),
        (RequestKind::Update, "update"),
        (RequestKind::FetchResult, "fetch_result"),
        (RequestKind::ContinueCall, "continue_call"),
    ]
);

/// How a request failed.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Failure {
    /// A JSON-RPC error answer.
    Rpc {
        /// The error.
        error: RpcError,
    },
    /// An HTTP error answer (Sume envelope or a bare status).
    Http {
        /// The HTTP status.
        status: u16,
        /// The error code from the envelope, if any.
        #[serde(default)]
        code: Option<String>,
        /// Retry-After, in milliseconds, if the answer carried one.
        #[serde(default)]
        retry_after_ms: Option<u64>,
    },
    /// No answer: connection error or local timeout. Not a cancel, never a reason to resubmit.
    Transport,
}

/// A request the host must send now.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Request {
    /// `tasks/get {taskId}` or `jobs_get {job_id}`.
    Get {
        /// The task or job id.
        handle: String,
    },
    /// `tasks/cancel {taskId}` or `jobs_cancel {job_id, idempotency_key}`.
    Cancel {
        /// The task or job id.
        handle: String,
        /// Job only: the cancel's own idempotency key (the same for every retry of this cancel;
        /// C-13).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        idempotency_key: Option<String>,
    },
    /// `tasks/update {taskId, inputResponses}`.
    Update {
        /// The task id.
        handle: String,
        /// Key → response, each key answered once.
        responses: Vec<(String, Json)>,
    },
    /// 2025 `tasks/result {taskId}` (blocks server-side until terminal).
    FetchResult {
        /// The task id.
        handle: String,
    },
    /// 2026 MRTR: the continuation `tools/call`, the same tool and arguments with the answers
    /// and the server's `requestState`. The only re-send of a `tools/call`: it carries the
    /// server's state, so it continues the call and is not a resubmission.
    ContinueCall {
        /// Key -> response, every key of the round answered once (none for a round that asked
        /// nothing, E-69).
        responses: Vec<(String, Json)>,
        /// The server's `requestState`, unchanged.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        request_state: Option<Json>,
    },
}

impl Request {
    /// Which kind of request this is.
    #[must_use]
    pub fn kind(&self) -> RequestKind {
        match self {
            Request::Get { .. } => RequestKind::Get,
            Request::Cancel { .. } => RequestKind::Cancel,
            Request::Update { .. } => RequestKind::Update,
            Request::FetchResult { .. } => RequestKind::FetchResult,
            Request::ContinueCall { .. } => RequestKind::ContinueCall,
        }
    }
}

/// Why watching ended without a settled outcome. The call itself is not affected.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// The policy's maximum number of polls was reached.
    MaxPolls,
    /// The watch deadline passed.
    Deadline,
    /// The host stopped watching.
    HostStopped,
    /// The creating request got no answer; reconcile, never resubmit.
    CreateUnanswered,
    /// An answer was larger than the configured reader limit; its meaning is unknown.
    AnswerTooLarge,
}

crate::tagged::unit_enum!(
    StopReason,
    "enum StopReason",
    [
        (StopReason::MaxPolls, "max_polls"),
        (StopReason::Deadline, "deadline"),
        (StopReason::HostStopped, "host_stopped"),
        (StopReason::CreateUnanswered, "create_unanswered"),
        (StopReason::AnswerTooLarge, "answer_too_large"),
    ]
);

/// Something the host must do or show, drained from [`Tracker::poll_output`].
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Output {
    /// Send this request now.
    Send {
        /// The request.
        request: Request,
    },
    /// Ask the user for input key `key`: emitted once per key over the task's life.
    AskUser {
        /// The key; answer it with [`Input::InputAnswered`].
        key: String,
        /// What the server asks.
        request: Json,
        /// True for a 2026 MRTR input of the `tools/call` itself (asked before any task
        /// exists; its keys are a namespace of their own), false for a task's input.
        #[serde(default, skip_serializing_if = "core::ops::Not::not")]
        call: bool,
    },
    /// The cancel button changed.
    Button {
        /// What it shows now.
        state: ButtonState,
    },
    /// The status the tracker holds changed.
    Status {
        /// The new status.
        status: Status,
    },
    /// The peer broke a rule. The tracker keeps working.
    Violation {
        /// What was broken.
        violation: Violation,
    },
    /// The call settled with this verified outcome. Emitted exactly once.
    Settled {
        /// The outcome.
        outcome: Outcome,
        /// The terminal status, when one was observed (`None` for lost handles and plain results).
        status: Option<Status>,
        /// The result exactly as the server sent it: the tool result (`CallToolResult`) of a
        /// task or plain call, or a job's `result`. Absent when none came.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        result: Option<Json>,
        /// The error exactly as the server sent it: the JSON-RPC error of a failed task or call
        /// (2025: what `tasks/result` answered), or a job's `error`. Absent when none came.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<Json>,
    },
    /// Watching ended without an outcome. The call goes on.
    Stopped {
        /// Why.
        reason: StopReason,
    },
    /// Nothing more now: call [`Tracker::handle_timeout`] at this time (or earlier on input).
    WakeAt {
        /// Absolute time in milliseconds.
        at: u64,
    },
    /// Nothing more until the next input (a request is in flight, or the tracker is done).
    Idle,
}
