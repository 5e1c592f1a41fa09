//! [`CallEndpoint`]: one sans-io endpoint per call. It owns a [`Tracker`] and the wire: what
//! arrived goes in exactly as it arrived (a JSON-RPC message as bytes, a job API's HTTP answer),
//! and what to send comes out ready for the wire ([`Transmit`]), beside the tracker's outputs.
//! The tracker decides; the endpoint only maps, once.
//!
//! ```
//! use longcall::endpoint::{CallEndpoint, Config, Event, Transmit};
//! use longcall::{Model, outcome::Outcome};
//!
//! let mut ep = CallEndpoint::call_tool(Model::Task2026, "render", serde_json::json!({}), None,
//!     Config::default()).unwrap();
//! let Event::Transmit(Transmit::Rpc { id, text, headers }) = ep.poll_event() else { panic!() };
//! assert!(text.contains("\"tools/call\""));
//! assert!(headers.iter().any(|(k, v)| k == "Mcp-Name" && v == "render"));
//! // ... the host POSTs `text` with `headers` and hands back the answer's bytes:
//! let answer = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"resultType":"complete",
//!     "content":[{{"type":"text","text":"hi"}}]}}}}"#);
//! ep.handle_message(10, answer.as_bytes());
//! loop {
//!     match ep.poll_event() {
//!         Event::Settled { outcome, result, .. } => {
//!             assert_eq!(outcome, Outcome::Succeeded);
//!             assert!(result.is_some());
//!         }
//!         Event::WakeAt { .. } | Event::Idle => break, // sleep until then, or until input
//!         _ => {}
//!     }
//! }
//! ```
//!
//! **After every `handle_*` call (and every user input) drain [`CallEndpoint::poll_event`] until
//! it returns [`Event::WakeAt`] or [`Event::Idle`]**; call [`CallEndpoint::handle_timeout`] at the
//! time of `WakeAt` (or earlier on input).
//!
//! Rules, written once:
//!
//! * **E-1 Ids.** The endpoint numbers its JSON-RPC requests 1, 2, 3, ... in the order it emits
//!   them and matches each answer to its request by id. An answer whose id names no request in
//!   flight is [`Rule::UnknownAnswerId`] and changes nothing else.
//! * **E-2 Unreadable answers.** An answer that cannot be read (not JSON, not a response, a shape
//!   the codecs refuse, or one the tracker refuses, such as another task's id) is
//!   [`Rule::UnreadableAnswer`] and counts as no answer to its request: a poll is re-armed at the
//!   floor, a cancel reopens, an unreadable `tools/call` answer is the call unanswered (never
//!   re-sent). A message whose id cannot be read is matched only when exactly one request is in
//!   flight.
//! * **E-3 Limits.** Every message is read under [`Config::limits`] (4 MiB, 64 levels, strings
//!   as long as the message by default). An answer over them cannot be read at all, so watching stops with
//!   [`StopReason::AnswerTooLarge`] (the host still holds the bytes; raise the limits and watch
//!   the handle again): never a hang, never a guess.
//! * **E-4 Revision.** The endpoint speaks the revision it was made with. Each answer to a
//!   `tasks/*` request is checked with [`crate::wire::detect`]; a shape of the other revision is
//!   [`Rule::WrongRevisionMethod`] (turn it off with [`Config::detect_revision`]).
//! * **E-5 Resume.** A snapshot holds the tracker and the requests in flight. On restore those
//!   are treated as lost: a poll or `tasks/result` is re-armed at the floor, a cancel or
//!   `tasks/update` is sent again (same idempotency key), and a `tools/call` in flight is the
//!   call unanswered: it is never sent again.
//! * **E-6 Watching a persisted handle** starts with a poll (`tasks/get`, a job get), with no
//!   status assumed until it answers.
//! * **E-7 Jobs over HTTP.** A job request is a method, a path and a body from [`JobRoutes`]
//!   (the dialect; `{id}` is replaced by the job id); a cancel carries its idempotency key in
//!   the body and in the `Idempotency-Key` header. Any 2xx answer to a get is the job; other
//!   statuses are HTTP failures with the envelope's code and `Retry-After`.
//! * **E-10 Two job dialects.** [`Config::job_dialect`] picks how job requests are built and
//!   answers read: [`JobDialect::McpTools`] through [`JobRoutes`] and [`crate::wire::sume`];
//!   [`JobDialect::OpenApi`] through the builders of [`crate::wire::sume_open`] and its
//!   [`answer_input`](crate::wire::sume_open::answer_input) (the `data` wrapper, `nsfw`,
//!   `retryable`, `Retry-After` dates, rules D-2 to D-10); a `completed` status is followed by
//!   one `GET /result`, and the job settles with that result (D-10). One lifecycle either way.
//! * **E-11 Submit with an intent key** ([`CallEndpoint::submit_job`]). The idempotency key is
//!   the caller's intent: it is in the snapshot and goes on every try of the submit. Admission
//!   ([`crate::admission`]) reads a refusal: a 429, `queue_full` or 5xx is sent again with the
//!   **same** key after `Retry-After` (else a backoff from the poll policy); a permanent refusal
//!   settles `failed` with the envelope. A submit with no answer (a transport failure, a
//!   restore with the submit in flight) is reconciled by sending it again with the same key,
//!   the one legal re-send (R-5): the server answers with the job it already has. At most
//!   [`SUBMIT_TRIES`] tries; then watching stops with `create_unanswered` and the key is kept.

use alloc::collections::VecDeque;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::codec::{
    build_continuation, build_reply, build_request, build_tools_call, read_answer,
    read_notification,
};
use super::codec::{Asked, Built};
use crate::admission::Advice;
use crate::cancel::ButtonState;
use crate::error::{Error, Quoted};
use crate::model::Model;
use crate::outcome::{Outcome, Payload};
use crate::server::gate::TaskSupport;
use crate::snapshot::{self, Snapshot};
use crate::status::Status;
use crate::time::later;
use crate::tracker::{
    Failure, Input, Output, Polled, Request, RequestKind, StopReason, Tracker, TrackerConfig,
};
use crate::view::JobView;
use crate::violation::{Rule, Violation};
use crate::wire::mcp2026::ClientInfo;
use crate::wire::{detect, mcp2025, mcp2026, sume, sume_open, Id, Limits, Message};
use crate::Json;

/// How often a submit is sent at most (the first try included) before watching stops with
/// `create_unanswered` (rule E-11). Every try carries the same idempotency key.
pub const SUBMIT_TRIES: u32 = 8;

/// Which job API an endpoint of [`Model::Job`] speaks (rule E-10).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum JobDialect {
    /// The MCP job tools over HTTP, on [`Config::job_routes`] (`jobs_get`, `jobs_cancel`).
    #[default]
    McpTools,
    /// The Sume Open API (`/v1/jobs/{id}/status`, `/v1/jobs/{id}/cancel`, answers in `data`).
    OpenApi,
}

crate::tagged::unit_enum!(
    JobDialect,
    "enum JobDialect",
    [
        (JobDialect::McpTools, "mcp_tools"),
        (JobDialect::OpenApi, "open_api")
    ]
);

impl JobDialect {
    /// Every dialect.
    pub const ALL: [JobDialect; 2] = [JobDialect::McpTools, JobDialect::OpenApi];
}

/// A job to create with [`CallEndpoint::submit_job`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JobSubmit {
    /// The catalog model.
    pub model: String,
    /// The model's kind (decides the Open API route, D-8; unused by the MCP tools).
    pub kind: sume_open::Kind,
    /// The arguments (an object; a `model` inside is ignored).
    pub arguments: Value,
    /// The key of the caller's intent: the same for every try, across restarts.
    pub idempotency_key: String,
}

// Read member by member from a `Value` object (`crate::tagged`): a derived reader would also
// compile an array form nobody writes.
impl<'de> Deserialize<'de> for JobSubmit {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut f = crate::tagged::members(d, "struct JobSubmit")?;
        Ok(JobSubmit {
            model: f.req("model")?,
            kind: f.req("kind")?,
            arguments: f.req("arguments")?,
            idempotency_key: f.req("idempotency_key")?,
        })
    }
}

/// The paths of a job API (the HTTP dialect). `{id}` stands for the job id.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(default)]
pub struct JobRoutes {
    /// Method and path of a job get.
    pub get: (String, String),
    /// Method and path of a job cancel.
    pub cancel: (String, String),
}

// Read member by member from a `Value` object (`crate::tagged`): a derived reader would also
// compile an array form nobody writes.
impl<'de> Deserialize<'de> for JobRoutes {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut f = crate::tagged::members(d, "struct JobRoutes")?;
        let fallback = JobRoutes::default();
        Ok(JobRoutes {
            get: f.or("get", fallback.get)?,
            cancel: f.or("cancel", fallback.cancel)?,
        })
    }
}

// The routes of the MCP job tools over HTTP, beside the submit's `POST /jobs` (what the
// reference server, `longcall serve-jobs`, answers).
impl Default for JobRoutes {
    fn default() -> Self {
        JobRoutes {
            get: ("GET".into(), "/jobs/{id}".into()),
            cancel: ("POST".into(), "/jobs/{id}/cancel".into()),
        }
    }
}

/// How an endpoint reads, polls and speaks.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(default)]
pub struct Config {
    /// The tracker's poll policy, seed and watch deadline.
    pub tracker: TrackerConfig,
    /// Reader limits for every message (rule E-3).
    pub limits: Limits,
    /// Check each `tasks/*` answer's revision (rule E-4).
    pub detect_revision: bool,
    /// The job API's routes (rule E-7).
    pub job_routes: JobRoutes,
    /// The job API's dialect (rule E-10).
    pub job_dialect: JobDialect,
    /// The client's identity on each 2026 request (rule M-21); `None` names longcall. Only the
    /// 2026 wire carries it: on 2025 the host's `initialize` names the client, and a job API
    /// has no such member, so either refuses one given (`invalid_config`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_info: Option<ClientInfo>,
}

// Read member by member from a `Value` object (`crate::tagged`): a derived reader would also
// compile an array form nobody writes.
impl<'de> Deserialize<'de> for Config {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut f = crate::tagged::members(d, "struct Config")?;
        let fallback = Config::default();
        Ok(Config {
            tracker: f.or("tracker", fallback.tracker)?,
            limits: f.or("limits", fallback.limits)?,
            detect_revision: f.or("detect_revision", fallback.detect_revision)?,
            job_routes: f.or("job_routes", fallback.job_routes)?,
            job_dialect: f.or("job_dialect", fallback.job_dialect)?,
            client_info: f.opt("client_info")?,
        })
    }
}

impl Config {
    /// The default configuration with the tracker's jitter drawn from `seed`: what a host
    /// should start from. Draw the seed from your random source for each call (or at least each
    /// process); the default seed is the same everywhere, and calls started together with it
    /// poll together.
    ///
    /// ```
    /// use longcall::endpoint::Config;
    /// let seed = 0x9e37_79b9_7f4a_7c15; // from your random source
    /// let config = Config::with_seed(seed);
    /// assert_eq!(config.tracker.seed, seed);
    /// assert_eq!(Config { tracker: Default::default(), ..config }, Config::default());
    /// ```
    #[must_use]
    pub fn with_seed(seed: u64) -> Config {
        let mut config = Config::default();
        config.tracker.seed = seed;
        config
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            tracker: TrackerConfig::default(),
            limits: Limits::DEFAULT,
            detect_revision: true,
            job_routes: JobRoutes::default(),
            job_dialect: JobDialect::default(),
            client_info: None,
        }
    }
}

/// Something to put on the wire, ready to send.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Transmit {
    /// A JSON-RPC request: POST `text` with `headers` (Streamable HTTP) or write it (stdio).
    /// Hand the answer to [`CallEndpoint::handle_answer`] where the transport pairs it with the
    /// request (the body of the POST's response), else to [`CallEndpoint::handle_message`]
    /// (stdio, a stream of messages).
    Rpc {
        /// The request id (also its request reference).
        id: u64,
        /// The JSON-RPC request text.
        text: String,
        /// HTTP headers (`Mcp-Method`, `Mcp-Name`, `MCP-Protocol-Version`).
        headers: Vec<(String, String)>,
    },
    /// A JSON-RPC response to a request of the server's (rule I-10: a 2025 task asking for
    /// input on its `tasks/result` stream): POST `text` with `headers` (Streamable HTTP; the
    /// server answers `202 Accepted` with no body) or write it (stdio). Nothing is handed back:
    /// what the answer moves on arrives on the `tasks/result` stream. If it cannot be sent,
    /// drop it: the stream's answer (or its failure) tells the endpoint what happened next.
    Reply {
        /// The JSON-RPC response text.
        text: String,
        /// HTTP headers (`MCP-Protocol-Version`).
        headers: Vec<(String, String)>,
    },
    /// A job API request: send `method` `path` on the API's base URL with `headers`, plus the
    /// host's own credentials (the core never holds an API key: add `Authorization: Bearer
    /// <key>` yourself). Hand the answer to [`CallEndpoint::handle_http_headers`] (or
    /// [`CallEndpoint::handle_http`]) with `request_ref`, whatever its status: a 4xx or 5xx is
    /// an answer, which the core reads. Only when no answer came at all (a connection error, a
    /// local timeout) call [`CallEndpoint::handle_transport_failure`].
    Http {
        /// The reference to answer with.
        request_ref: u64,
        /// `GET`, `POST`, ...
        method: String,
        /// The path.
        path: String,
        /// Headers: `Idempotency-Key` on a submit; on a cancel too in the MCP job tools dialect
        /// (the Open API's cancel carries none: D-9).
        headers: Vec<(String, String)>,
        /// The JSON body, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        body: Option<String>,
    },
}

/// An HTTP answer, as it arrived: a job API's, or the response to the POST of a JSON-RPC request
/// (rule E-67).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HttpAnswer<'a> {
    /// The HTTP status.
    pub status: u16,
    /// `Retry-After` in milliseconds, when the host read it; with the answer's headers given
    /// (`handle_http_headers`, `Wave::handle_wait_http`) the core reads it from them.
    pub retry_after_ms: Option<u64>,
    /// The body bytes.
    pub body: &'a [u8],
}

/// What the host must do or show, drained with [`CallEndpoint::poll_event`].
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Event {
    /// Send this now.
    Transmit(Transmit),
    /// Ask the user; answer with [`CallEndpoint::answer_input`]. Once per key.
    AskUser {
        /// The key.
        key: String,
        /// What the server asks.
        request: Json,
        /// True for an MRTR input of the `tools/call` itself.
        #[serde(default, skip_serializing_if = "core::ops::Not::not")]
        call: bool,
    },
    /// The cancel button changed.
    Button {
        /// What it shows now.
        state: ButtonState,
    },
    /// The status changed.
    Status {
        /// The new status.
        status: Status,
    },
    /// The task's `statusMessage` changed (E-61): words for the person, such as "Rendering
    /// frame 40 of 90". It never changes the status or the outcome.
    Progress {
        /// The message as the server wrote it.
        message: String,
    },
    /// The peer broke a rule.
    Violation {
        /// What was broken.
        violation: Violation,
    },
    /// The call settled, exactly once, with the payload as the server sent it.
    Settled {
        /// The outcome.
        outcome: Outcome,
        /// The terminal status, when one was observed.
        status: Option<Status>,
        /// The tool result (or job result).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        result: Option<Json>,
        /// The JSON-RPC error (or job error).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<Json>,
    },
    /// Watching ended without an outcome (the call goes on).
    Stopped {
        /// Why.
        reason: StopReason,
        /// `create_unanswered` after an HTTP answer that carried no JSON-RPC answer (a 429 or
        /// 503 page): its status and `Retry-After`, so the host knows when a call of its own may
        /// go out again (E-68). Absent when nothing came back at all.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        failure: Option<Failure>,
    },
    /// A poll (a result fetch, an input update) got no usable answer and the call is still
    /// watched: the core tries again at the next [`Event::WakeAt`] (its backoff, never before a
    /// `Retry-After`). Emitted for each such failure so a page can say the server is not
    /// answering; [`Event::Recovered`] follows the first answer after (E-63). A cancel that
    /// fails shows on the button; a create that fails, as an admission or a stop.
    RequestFailed {
        /// The request that failed.
        request: RequestKind,
        /// How: an HTTP status (with the job API's error code), a JSON-RPC error, or no answer.
        failure: Failure,
    },
    /// The server answered again after [`Event::RequestFailed`] (E-63).
    Recovered,
    /// A submit was refused or got no answer; what admission advises (rule E-11). The
    /// endpoint acts on it itself (a re-send with the same key, or a settle); the host may show
    /// it (a `queue_full` is a good moment to cancel queued jobs no longer wanted, A-2).
    Admission {
        /// The advice.
        advice: Advice,
        /// The HTTP status (0: no answer).
        http_status: u16,
        /// The request id the answer carried (D-5), if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        request_id: Option<String>,
    },
    /// Nothing more now: call [`CallEndpoint::handle_timeout`] at `at` (or earlier on input).
    WakeAt {
        /// Absolute time, ms.
        at: u64,
    },
    /// Nothing more until the next input.
    Idle,
}

/// The `statusMessage` an input carries (a task created, polled or notified), for E-61.
fn status_message(input: &Input) -> Option<String> {
    match input {
        Input::TaskCreated { task } | Input::TaskPolled { task } | Input::TaskNotified { task } => {
            task.status_message.clone()
        }
        _ => None,
    }
}

/// A request on the wire, not answered yet.
#[derive(Clone, Debug, PartialEq, Serialize)]
struct Pending {
    id: u64,
    /// `None`: the creating `tools/call`.
    request: Option<Request>,
    /// An Open API `GET /result` asked after a `completed` status (D-10).
    #[serde(default, skip_serializing_if = "core::ops::Not::not")]
    result: bool,
}

// Read member by member from a `Value` object (`crate::tagged`): a derived reader would also
// compile an array form nobody writes.
impl<'de> Deserialize<'de> for Pending {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut f = crate::tagged::members(d, "struct Pending")?;
        Ok(Pending {
            id: f.req("id")?,
            request: f.opt("request")?,
            result: f.def("result")?,
        })
    }
}

/// The creating call: tool and arguments (kept for the MRTR continuation).
#[derive(Clone, Debug, PartialEq, Serialize)]
struct CallSpec {
    name: String,
    arguments: Value,
}

// Read member by member from a `Value` object (`crate::tagged`): a derived reader would also
// compile an array form nobody writes.
impl<'de> Deserialize<'de> for CallSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut f = crate::tagged::members(d, "struct CallSpec")?;
        Ok(CallSpec {
            name: f.req("name")?,
            arguments: f.req("arguments")?,
        })
    }
}

/// One call, end to end: see the [module docs](self) for the run loop and the rules.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CallEndpoint {
    model: Model,
    tracker: Tracker,
    config: Config,
    call: Option<CallSpec>,
    next_id: u64,
    pending: Vec<Pending>,
    queue: VecDeque<Event>,
    /// The creating job submit (rule E-11), kept until the job is created.
    #[serde(default)]
    submit: Option<SubmitSpec>,
    /// The prompts released and not answered yet, each an [`Event::AskUser`] (R-7): a resumed
    /// host shows them again from [`CallEndpoint::open_prompts`], the core does not ask again.
    #[serde(default, skip_serializing_if = "VecDeque::is_empty")]
    prompts: VecDeque<Event>,
    /// The keys of the server's own requests for input asked so far (I-10, 2025); one not
    /// answered yet is also in `prompts`, its request carrying the server's id.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    server_keys: Vec<String>,
    /// The answers given to those requests, by key (I-10): a request the server sends again
    /// after its answer (the reply lost with a connection) is answered again with the same
    /// answer, never asked again.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    replies: Vec<(String, Json)>,
    /// The last `statusMessage` given as [`Event::Progress`] (E-61).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    progress: Option<String>,
    /// The host asked to stop while the create was out (E-62): the stop takes effect once the
    /// create is answered, so the handle it names is kept.
    #[serde(default, skip_serializing_if = "core::ops::Not::not")]
    stop_asked: bool,
    /// The user pressed cancel while the create was out (E-65): the press goes to the tracker
    /// once the create's answer names the call.
    #[serde(default, skip_serializing_if = "core::ops::Not::not")]
    cancel_asked: bool,
    /// The last request failed and nothing answered since (E-63).
    #[serde(default, skip_serializing_if = "core::ops::Not::not")]
    failing: bool,
    /// 2025, after a restart: the keys of open prompts whose request ended with the old
    /// process's connection (R-7). Each is shown again when the server sends its request again
    /// (the same id), and not listed by [`CallEndpoint::open_prompts`] until then.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    awaiting: Vec<String>,
    /// The job submit's digest (E-66), kept for the endpoint's whole life where the submit
    /// itself goes once the job is created: a record found under an intent key must still tell
    /// its job from another submitted under the same key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    submit_digest: Option<String>,
}

// Read member by member from a `Value` object (`crate::tagged`): a derived reader would also
// compile an array form nobody writes.
impl<'de> Deserialize<'de> for CallEndpoint {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error as _;
        let mut f = crate::tagged::members(d, "struct CallEndpoint")?;
        let ep = CallEndpoint {
            model: f.req("model")?,
            tracker: f.req("tracker")?,
            config: f.req("config")?,
            call: f.opt("call")?,
            next_id: f.req("next_id")?,
            pending: f.req("pending")?,
            queue: f.req("queue")?,
            submit: f.opt("submit")?,
            prompts: f.def("prompts")?,
            server_keys: f.def("server_keys")?,
            replies: f.def("replies")?,
            progress: f.opt("progress")?,
            stop_asked: f.def("stop_asked")?,
            cancel_asked: f.def("cancel_asked")?,
            failing: f.def("failing")?,
            awaiting: f.def("awaiting")?,
            submit_digest: f.opt("submit_digest")?,
        };
        // What every endpoint that ran holds (S-7): one model, and ids the wire carries (a JSON-RPC id
        // is written as an i64) given out in order, so a new request never reuses one.
        if ep.tracker.model() != ep.model {
            return Err(D::Error::custom("the tracker is of another model"));
        }
        if !names_client(ep.model, &ep.config) {
            return Err(D::Error::custom(format_args!(
                "config.client_info: {NAMES_CLIENT}"
            )));
        }
        if ep.next_id == 0 || ep.next_id > (1 << 63) - 1 {
            return Err(D::Error::custom(
                "next_id: expected an integer from 1 to 2^63-1",
            ));
        }
        if ep.pending.iter().any(|p| p.id >= ep.next_id) {
            return Err(D::Error::custom(
                "a pending request has an id not given out yet (next_id)",
            ));
        }
        Ok(ep)
    }
}

/// M-21: a client identity is configured only where it is sent, the 2026 wire; one that would
/// never be sent is refused, not dropped.
fn names_client(model: Model, config: &Config) -> bool {
    model == Model::Task2026 || config.client_info.is_none()
}

const NAMES_CLIENT: &str =
    "only the 2026 wire names the client on each request; on 2025 the host's initialize names it";

/// The request a job submit sends, in `dialect` (E-11, D-8).
fn submit_request(
    submit: &JobSubmit,
    dialect: JobDialect,
) -> Result<sume_open::HttpRequest, Error> {
    if submit.idempotency_key.is_empty() {
        return Err(Error::invalid_input(
            "idempotency_key",
            "a submit needs the key of its intent",
        ));
    }
    let request = match dialect {
        JobDialect::OpenApi => sume_open::submit_request(
            submit.kind,
            &submit.model,
            &submit.arguments,
            &submit.idempotency_key,
        )?,
        JobDialect::McpTools => {
            let Value::Object(args) = &submit.arguments else {
                return Err(Error::invalid_input("arguments", "an object"));
            };
            let mut body = args.clone();
            body.insert("model".into(), Value::from(submit.model.as_str()));
            body.insert(
                "idempotency_key".into(),
                Value::from(submit.idempotency_key.as_str()),
            );
            sume_open::HttpRequest {
                method: "POST".into(),
                path: "/jobs".into(),
                headers: alloc::vec![(
                    sume_open::IDEMPOTENCY_KEY_HEADER.into(),
                    submit.idempotency_key.clone()
                )],
                body: Some(crate::json_text(&Value::Object(body))),
            }
        }
    };
    Ok(request)
}

/// A digest of the request a submit sends, its key included (E-66): 64-bit FNV-1a, in hex
/// (a string, so a snapshot passed through `JSON.parse` keeps it whole). It tells one job from
/// another under the same key, a mistake, not an adversary. Equal arguments give equal bodies:
/// JSON objects are written with their keys sorted.
fn submit_digest(request: &sume_open::HttpRequest, key: &str) -> String {
    let body = request.body.as_deref().unwrap_or_default();
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for part in [request.method.as_str(), &request.path, key, body] {
        for byte in part.bytes().chain([0]) {
            hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    // Written digit by digit: `{:016x}` would link the formatter's padding into every build.
    (0..16)
        .rev()
        .map(|i| char::from_digit((hash >> (i * 4)) as u32 & 15, 16).unwrap_or('0'))
        .collect()
}

/// A job submit: the request, built once, and its tries.
#[derive(Clone, Debug, PartialEq, Serialize)]
struct SubmitSpec {
    method: String,
    path: String,
    headers: Vec<(String, String)>,
    body: String,
    key: String,
    tries: u32,
    retry_at: Option<u64>,
    /// A try got no answer, or one that may have come after the job was made (a 5xx, an
    /// unreadable 2xx): the job may exist under the key (rule A-10).
    #[serde(default, skip_serializing_if = "core::ops::Not::not")]
    maybe_made: bool,
}

// Read member by member from a `Value` object (`crate::tagged`): a derived reader would also
// compile an array form nobody writes.
impl<'de> Deserialize<'de> for SubmitSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut f = crate::tagged::members(d, "struct SubmitSpec")?;
        Ok(SubmitSpec {
            method: f.req("method")?,
            path: f.req("path")?,
            headers: f.req("headers")?,
            body: f.req("body")?,
            key: f.req("key")?,
            tries: f.req("tries")?,
            retry_at: f.opt("retry_at")?,
            maybe_made: f.def("maybe_made")?,
        })
    }
}

impl Snapshot for CallEndpoint {
    const KIND: &'static str = "call_endpoint";
}

impl CallEndpoint {
    fn new(model: Model, config: Config) -> Result<CallEndpoint, Error> {
        config.limits.check().map_err(|e| e.within("limits"))?;
        if !names_client(model, &config) {
            return Err(Error::invalid_config("client_info", NAMES_CLIENT));
        }
        Ok(CallEndpoint {
            model,
            tracker: Tracker::new(model, config.tracker.clone())?,
            config,
            call: None,
            next_id: 1,
            pending: Vec::new(),
            queue: VecDeque::new(),
            submit: None,
            prompts: VecDeque::new(),
            server_keys: Vec::new(),
            replies: Vec::new(),
            progress: None,
            stop_asked: false,
            cancel_asked: false,
            failing: false,
            awaiting: Vec::new(),
            submit_digest: None,
        })
    }

    /// Creates a job (rule E-11): the first event is its submit, built by the dialect of
    /// `config` (Open API: `POST` on the kind's route with the `Idempotency-Key` header; MCP
    /// tools: `POST /jobs` with `idempotency_key` in the body). The job is watched with the
    /// core's schedule once the submit is answered.
    ///
    /// ```
    /// use longcall::endpoint::{CallEndpoint, Config, Event, HttpAnswer, JobDialect, JobSubmit, Transmit};
    /// use longcall::wire::sume_open::Kind;
    ///
    /// let config = Config { job_dialect: JobDialect::OpenApi, ..Config::default() };
    /// let submit = JobSubmit { model: "demo-image".into(), kind: Kind::Image,
    ///     arguments: serde_json::json!({"prompt": "a harbour"}), idempotency_key: "intent-7".into() };
    /// let mut ep = CallEndpoint::submit_job(submit, config).unwrap();
    /// let Event::Transmit(Transmit::Http { request_ref, path, headers, .. }) = ep.poll_event() else { panic!() };
    /// assert_eq!(path, "/v1/image-router/generate");
    /// assert!(headers.contains(&("Idempotency-Key".into(), "intent-7".into())));
    /// let body = br#"{"data":{"request_id":"job_1","sume_status":"queued"}}"#;
    /// ep.handle_http(5, request_ref, HttpAnswer { status: 200, retry_after_ms: None, body });
    /// assert_eq!(ep.tracker().handle(), Some("job_1"));
    /// ```
    ///
    /// Errors: an empty key, arguments that are not an object, a kind that cannot be
    /// submitted, a bad poll policy.
    pub fn submit_job(submit: JobSubmit, config: Config) -> Result<CallEndpoint, Error> {
        let request = submit_request(&submit, config.job_dialect)?;
        let digest = submit_digest(&request, &submit.idempotency_key);
        let mut ep = CallEndpoint::new(Model::Job, config)?;
        ep.submit = Some(SubmitSpec {
            method: request.method,
            path: request.path,
            headers: request.headers,
            body: request.body.unwrap_or_default(),
            key: submit.idempotency_key,
            tries: 0,
            retry_at: None,
            maybe_made: false,
        });
        ep.submit_digest = Some(digest);
        ep.send_submit();
        Ok(ep)
    }

    /// Checks that `submit` is the job this endpoint submitted (rule E-66), before a host
    /// continues a record it found under the submit's intent key: the same key with another
    /// model or arguments would watch the job the key first named, not the one asked for, so
    /// it is refused. The endpoint does not change either way.
    ///
    /// ```
    /// use longcall::endpoint::{CallEndpoint, Config, JobSubmit};
    /// use longcall::wire::sume_open::Kind;
    ///
    /// let submit = |prompt: &str| JobSubmit { model: "demo-image".into(), kind: Kind::Image,
    ///     arguments: serde_json::json!({"prompt": prompt}), idempotency_key: "intent-7".into() };
    /// let ep = CallEndpoint::submit_job(submit("a harbour"), Config::default()).unwrap();
    /// let back = CallEndpoint::restore(&ep.snapshot().unwrap(), 0).unwrap();
    /// assert!(back.check_submit(&submit("a harbour")).is_ok());
    /// assert_eq!(back.check_submit(&submit("a lighthouse")).unwrap_err().code(), "duplicate");
    /// ```
    ///
    /// An endpoint with no submit of its own to compare (it watches an id, or its snapshot
    /// was saved before submits were kept this way) cannot tell, and accepts.
    ///
    /// Errors: [`Error::Duplicate`] (`idempotency_key`) when the endpoint submitted another
    /// request: another model, arguments or key, or a kind on another route. A submit that
    /// cannot be built gets [`CallEndpoint::submit_job`]'s errors.
    pub fn check_submit(&self, submit: &JobSubmit) -> Result<(), Error> {
        let request = submit_request(submit, self.config.job_dialect)?;
        let Some(kept) = &self.submit_digest else {
            return Ok(());
        };
        if *kept == submit_digest(&request, &submit.idempotency_key) {
            return Ok(());
        }
        Err(Error::Duplicate {
            what: "idempotency key",
            id: submit.idempotency_key.clone(),
        })
    }

    /// The idempotency key of the job submit, while the job is not created yet (rule E-11).
    #[must_use]
    pub fn submit_key(&self) -> Option<&str> {
        self.submit.as_ref().map(|s| s.key.as_str())
    }

    /// The tool this endpoint called (`call_tool`), kept in its snapshot; `None` for a job or a
    /// watched handle.
    #[must_use]
    pub fn tool_name(&self) -> Option<&str> {
        self.call.as_ref().map(|c| c.name.as_str())
    }

    /// How often the job submit was sent so far.
    #[must_use]
    pub fn submit_tries(&self) -> u32 {
        self.submit.as_ref().map_or(0, |s| s.tries)
    }

    /// Sends (again) the job submit, same request and key.
    fn send_submit(&mut self) {
        let id = self.take_id();
        let Some(s) = self.submit.as_mut() else {
            return;
        };
        s.tries = s.tries.saturating_add(1);
        s.retry_at = None;
        let mut headers = s.headers.clone();
        headers.push(("Content-Type".into(), "application/json".into()));
        let t = Transmit::Http {
            request_ref: id,
            method: s.method.clone(),
            path: s.path.clone(),
            headers,
            body: Some(s.body.clone()),
        };
        self.pending.push(Pending {
            id,
            request: None,
            result: false,
        });
        self.queue.push_back(Event::Transmit(t));
    }

    /// A submit answer (or its absence, `status` 0) arrived: created, or what admission says.
    fn submit_answered(
        &mut self,
        now: u64,
        status: u16,
        headers: &[(String, String)],
        body: Option<&Value>,
        retry_after_ms: Option<u64>,
    ) {
        let ok = (200..300).contains(&status);
        if ok {
            let read = match (self.config.job_dialect, body) {
                (JobDialect::OpenApi, Some(b)) => sume_open::read_submit(b),
                (_, Some(b)) => sume::read_job(b.get("job").unwrap_or(b)),
                (_, None) => Err(Error::invalid_input("body", "a submit answer must be JSON")),
            };
            match read {
                // D-10 for a submit: a key sent again after its job finished is answered with
                // the job as it is, `completed` with no result. The result is asked once before
                // the tracker hears of the job, and the submit stays open until then: a host
                // restarted meanwhile sends it again (same key) and asks again.
                Ok(job) => {
                    let finished = self.config.job_dialect == JobDialect::OpenApi
                        && job.status == Status::Completed
                        && job.result.is_none();
                    let handle = job.id.clone();
                    if !(finished && self.ask_result(Request::Get { handle })) {
                        self.created_after_submit(now, job);
                    }
                }
                // An answer that cannot be read is no answer: reconcile with the same key.
                Err(e) => {
                    self.violate(Rule::UnreadableAnswer, e.to_string());
                    self.submit_retry(now, Advice::Reconcile, status, None);
                }
            }
            return;
        }
        let (advice, request_id, envelope, code) = if status == 0 {
            (Advice::Reconcile, None, None, None)
        } else {
            let mut e = sume_open::read_error(status, headers, body, now);
            if e.retry_after_ms.is_none() {
                e.retry_after_ms = retry_after_ms;
            }
            // The MCP tools' envelope has no `retryable`; it reads the same otherwise.
            let advice = sume_open::advice(&e);
            let code = Some(e.api.code).filter(|c| !c.is_empty());
            (advice, e.api.request_id, body.cloned(), code)
        };
        if let Advice::Permanent { .. } = advice {
            self.queue.push_back(Event::Admission {
                advice,
                http_status: status,
                request_id,
            });
            // A-10: a refusal of a later try says nothing of an earlier one that may have made
            // the job; ended unanswered, the key kept, so the host reconciles instead of paying
            // again under a new intent.
            if self.submit.as_ref().is_some_and(|s| s.maybe_made) {
                let failure = Failure::Http {
                    status,
                    code,
                    retry_after_ms: None,
                };
                return self.stop_unanswered(now, failure);
            }
            self.submit = None;
            // Through the tracker, so the outcome is in its record and the snapshot.
            self.feed(
                now,
                Input::SubmitRefused {
                    http_status: status,
                    error: envelope.map(|body| Json::from(api_error(body))),
                },
            );
            return;
        }
        self.submit_retry(now, advice, status, request_id);
    }

    /// Arms the next try of the submit (same key), or stops after [`SUBMIT_TRIES`].
    fn submit_retry(&mut self, now: u64, advice: Advice, status: u16, request_id: Option<String>) {
        // A-10: no answer, or one that may have come after the job was made.
        let maybe_made = matches!(advice, Advice::Reconcile | Advice::Backoff { .. });
        self.queue.push_back(Event::Admission {
            advice,
            http_status: status,
            request_id,
        });
        let poll = &self.config.tracker.poll;
        let Some(s) = self.submit.as_mut() else {
            return;
        };
        s.maybe_made |= maybe_made;
        if s.tries >= SUBMIT_TRIES {
            // The tracker ends the call, so the stop is in its state and the snapshot: a restored
            // endpoint is done and says why, instead of waiting for a try that never comes. The
            // key stays (`submit_key`): submitting it again reconciles with the server.
            self.feed(now, Input::CreateUnanswered);
            return;
        }
        // The poll policy's retry schedule, never before `Retry-After`.
        let delay = poll
            .retry_delay_ms(s.tries)
            .max(advice.not_before_ms().unwrap_or(0));
        s.retry_at = Some(later(now, delay));
    }

    /// Calls tool `name` with `arguments` (2026 or 2025; `ttl_ms` is the 2025 `task.ttl`). The
    /// first event is the `tools/call` to send.
    ///
    /// Errors: a job model, arguments that are not an object, a bad poll policy.
    pub fn call_tool(
        model: Model,
        name: &str,
        arguments: Value,
        ttl_ms: Option<u64>,
        config: Config,
    ) -> Result<CallEndpoint, Error> {
        CallEndpoint::call(model, name, true, arguments, ttl_ms, config)
    }

    /// Calls a tool as `tools/list` listed it (`{name, execution?: {taskSupport?}}`). On the
    /// 2025 wire, where the client decides, a tool whose `taskSupport` is `forbidden` or absent
    /// is called without a task (rule E-64): its answer settles the call at once (O-9), and
    /// `ttl_ms` must be `None`. `optional` and `required` ask for a task, as [`call_tool`] does.
    /// On 2026 the server decides per call, so this is [`call_tool`] of the listed name.
    ///
    /// ```
    /// use longcall::endpoint::{CallEndpoint, Config, Event, Transmit};
    /// use longcall::Model;
    /// use serde_json::json;
    ///
    /// let echo = json!({"name": "echo", "inputSchema": {"type": "object"}});
    /// let args = json!({"message": "hi"});
    /// let mut ep = CallEndpoint::call_listed_tool(Model::Task2025, &echo, args, None, Config::default()).unwrap();
    /// let Event::Transmit(Transmit::Rpc { text, .. }) = ep.poll_event() else { panic!() };
    /// assert!(!text.contains("\"task\"")); // a plain call: echo may not run as a task
    /// ```
    ///
    /// Errors: an entry without a non-empty string `name`; else as [`call_tool`].
    ///
    /// [`call_tool`]: CallEndpoint::call_tool
    pub fn call_listed_tool(
        model: Model,
        tool: &Value,
        arguments: Value,
        ttl_ms: Option<u64>,
        config: Config,
    ) -> Result<CallEndpoint, Error> {
        let (name, support) = crate::wire::mcp2025::listed_tool(tool)?;
        let as_task = model != Model::Task2025 || support != TaskSupport::Forbidden;
        CallEndpoint::call(model, &name, as_task, arguments, ttl_ms, config)
    }

    fn call(
        model: Model,
        name: &str,
        as_task: bool,
        arguments: Value,
        ttl_ms: Option<u64>,
        config: Config,
    ) -> Result<CallEndpoint, Error> {
        let mut ep = CallEndpoint::new(model, config)?;
        let id = ep.take_id();
        let built = build_tools_call(
            model,
            Id::Number(id as i64),
            name,
            arguments.clone(),
            ttl_ms,
            as_task,
        )?;
        ep.call = Some(CallSpec {
            name: name.into(),
            arguments,
        });
        ep.pending.push(Pending {
            id,
            request: None,
            result: false,
        });
        let built = ep.stamped(built);
        ep.queue.push_back(Event::Transmit(rpc(id, &built)));
        Ok(ep)
    }

    /// Watches a task or job whose id the host persisted (rule E-6): the first event is its poll.
    ///
    /// Errors: an empty id, a bad poll policy.
    pub fn watch(model: Model, handle: &str, config: Config) -> Result<CallEndpoint, Error> {
        let mut ep = CallEndpoint::new(model, config)?;
        ep.tracker.watch(handle)?;
        ep.pump();
        Ok(ep)
    }

    /// Watches this endpoint's call again after watching stopped with the call going on (a
    /// deadline, the host's stop): a new endpoint on the same handle and model. Its first poll
    /// keeps this watch's floors (P-16): no sooner than the end of the last poll plus the floor
    /// in force (the server's interval included) nor before a `Retry-After`, so its first event
    /// is that [`Event::WakeAt`], or the poll itself when this watch knew no floor; until then
    /// the status this watch last saw stands, with its button, unless a cancel was asked (then
    /// no status is assumed, E-6). A 2026 call stopped in an MRTR round, before any task, goes
    /// on from that round (E-70): the same tool and arguments, its unanswered prompts asked
    /// again, or, for a round that asked nothing, its continuation armed. It keeps the job
    /// submit's digest, so the record it writes still vouches for the job its intent submitted
    /// (E-66).
    ///
    /// Errors: [`Error::InvalidInput`] (`handle`) unless watching stopped on a call, named or in
    /// an open MRTR round, that has not settled (one still watched needs no second watcher); a
    /// bad poll policy.
    pub fn watch_again(&self, config: Config) -> Result<CallEndpoint, Error> {
        let t = &self.tracker;
        if !(t.handle().is_some() || t.round_open()) || !t.is_done() || t.outcome().is_some() {
            return Err(Error::invalid_input(
                "handle",
                "only a call whose watching stopped before it settled, named or in an MRTR \
                 round, is watched again",
            ));
        }
        let mut ep = CallEndpoint::new(self.model, config)?;
        ep.tracker.watch_after(&self.tracker)?;
        if t.handle().is_none() {
            // E-70: the MRTR round goes on, with the same tool and arguments; its prompts
            // nobody answered are asked again.
            ep.call.clone_from(&self.call);
            for prompt in &self.prompts {
                ep.prompts.push_back(prompt.clone());
                ep.queue.push_back(prompt.clone());
            }
        }
        ep.pump();
        ep.submit_digest.clone_from(&self.submit_digest);
        Ok(ep)
    }

    /// A versioned snapshot of the whole endpoint (tracker, requests in flight, config).
    ///
    /// When to take it: after draining [`CallEndpoint::poll_event`] and before sending what it
    /// gave (a restart then sends again what was in flight, E-5: a poll asked again, a cancel sent
    /// again with its key, a job submit sent again with its key, a `tools/call` never), and after
    /// handing in each answer, so the next restart starts from it. A loop that sends each
    /// transmit as it drains it (the README's) may take it at any point between two calls: what
    /// is in flight then is exactly what a restart handles so, and a `tools/call` in flight
    /// restores as unanswered (E-5).
    pub fn snapshot(&self) -> Result<String, Error> {
        snapshot::save(self)
    }

    /// Restores a snapshot at time `now`; requests that were in flight are handled by rule E-5.
    /// Its events are the new ones only: a call that had settled or stopped is done
    /// ([`Tracker::is_done`]) and says nothing again, its outcome and result in
    /// [`Tracker::record`]. A person looking at a restored call wants the present:
    /// [`CallEndpoint::handle_refresh`] brings the next poll to the floor (P-15).
    ///
    /// Errors: not a snapshot of an endpoint, another version, a malformed one.
    pub fn restore(text: &str, now: u64) -> Result<CallEndpoint, Error> {
        let mut ep: CallEndpoint = snapshot::restore(text)?;
        // Events not drained before the snapshot were the old host's to act on; what they
        // asked to send is in `pending` and handled below.
        ep.queue.retain(|e| !matches!(e, Event::Transmit(_)));
        for p in core::mem::take(&mut ep.pending) {
            match p.request {
                // R-5: a job submit with no answer is sent again with the same key; so is one
                // whose finished job's result was still being asked (D-10).
                None if ep.submit.is_some() => ep.send_submit(),
                Some(_) if ep.result_before_created(&p) => ep.send_submit(),
                None => ep.feed(now, Input::CreateUnanswered),
                Some(r @ (Request::Cancel { .. } | Request::Update { .. })) => {
                    ep.emit_request(r);
                }
                // A poll whose answer went with the old host: asked again at the floor.
                Some(r) => ep.lost_in_restart(now, r.kind()),
            }
        }
        // A request the tracker counts as out that no pending entry carries (a snapshot edited
        // by hand, or written by a host that lost its list) is lost the same way: otherwise its
        // answer is awaited forever and the call never wakes.
        let held: Vec<RequestKind> = ep
            .pending
            .iter()
            .filter_map(|p| p.request.as_ref().map(Request::kind))
            .collect();
        let orphans: Vec<RequestKind> = ep
            .tracker
            .requests_in_flight()
            .filter(|k| !held.contains(k))
            .collect();
        for request in orphans {
            ep.lost_in_restart(now, request);
        }
        // R-7 on 2025: an open prompt is the server's request, answered by a reply to its id on
        // the connection it came on, which ended with the old process. Shown now, its answer
        // could go nowhere while the server asks anew: it waits for its request instead.
        if ep.model == Model::Task2025 {
            ep.awaiting = ep
                .prompts
                .iter()
                .filter_map(|p| match p {
                    Event::AskUser { key, .. } => Some(key.clone()),
                    _ => None,
                })
                .collect();
        }
        Ok(ep)
    }

    /// A request whose answer went with the old host: told to the tracker as lost in transport,
    /// so it is asked again at the floor. The server did not fail, so no `RequestFailed` is
    /// said (E-63).
    fn lost_in_restart(&mut self, now: u64, request: RequestKind) {
        let lost = Input::RequestFailed {
            request,
            failure: Failure::Transport,
        };
        if let Err(e) = self.tracker.handle_input(now, lost) {
            self.violate(Rule::UnreadableAnswer, e.to_string());
        }
        self.pump();
    }

    /// The model.
    #[must_use]
    pub fn model(&self) -> Model {
        self.model
    }

    /// The tracker (its record, handle, status, button).
    #[must_use]
    pub fn tracker(&self) -> &Tracker {
        &self.tracker
    }

    /// The next event. Call it after every `handle_*` and user input until it returns
    /// [`Event::WakeAt`] or [`Event::Idle`].
    #[must_use]
    pub fn poll_event(&mut self) -> Event {
        if let Some(e) = self.queue.pop_front() {
            return e;
        }
        // Between tries nothing is out, so the deadline ends the wait (E-59).
        let submit = self.submit_retry_at().map(|at| {
            self.config
                .tracker
                .deadline_ms
                .map_or(at, |deadline| at.min(deadline))
        });
        // E-59: the watch deadline waits for an answered create.
        let tracker = if self.creating() {
            None
        } else {
            self.tracker.poll_timeout()
        };
        match (tracker, submit) {
            (Some(a), Some(b)) => Event::WakeAt { at: a.min(b) },
            (Some(at), None) | (None, Some(at)) => Event::WakeAt { at },
            (None, None) => Event::Idle,
        }
    }

    /// Time passed: call at (or after) the last [`Event::WakeAt`].
    pub fn handle_timeout(&mut self, now: u64) {
        if let Some(at) = self.submit_retry_at() {
            if self.config.tracker.deadline_ms.is_some_and(|d| d <= now) {
                // E-59: the deadline passed between tries, with nothing out: watching stops as
                // when the tries run out, the key kept for a reconciling submit.
                if let Some(s) = self.submit.as_mut() {
                    s.retry_at = None;
                }
                self.feed(now, Input::CreateUnanswered);
            } else if at <= now {
                self.send_submit();
            }
        }
        // E-59: a deadline that passes while the create is out does not stop the watch yet.
        if !self.creating() {
            self.tracker.handle_timeout(now);
        }
        self.pump();
        self.asked_while_creating(now);
    }

    /// When the job submit's next try is due, while it waits between tries.
    fn submit_retry_at(&self) -> Option<u64> {
        self.submit.as_ref().and_then(|s| s.retry_at)
    }

    /// The create (a job submit, a `tools/call`) is out and its answer has not named the call
    /// yet. Its answer is what lets the host find the work again, so the watch deadline waits
    /// for it (E-59): once the handle is known, a deadline already passed stops watching at once.
    fn creating(&self) -> bool {
        // The MRTR continuation is a create too: its answer may name the task (E-70).
        self.tracker.handle().is_none()
            && (self.submit.is_some()
                || self.pending.iter().any(|p| {
                    p.request.is_none() || matches!(p.request, Some(Request::ContinueCall { .. }))
                }))
    }

    /// The answer to request `id` on a transport that pairs answers with requests (the JSON
    /// body of the HTTP response to its POST), exactly as it arrived. It is read as
    /// [`CallEndpoint::handle_message`] reads it; when it does not answer `id` (the server
    /// echoed another id, or `null` for a request it could not read), request `id` got no
    /// answer and goes as [`CallEndpoint::handle_transport_failure`] has it (E-1), so nothing
    /// waits for an answer that cannot come.
    ///
    /// ```
    /// use longcall::endpoint::{CallEndpoint, Config, Event, Transmit};
    /// use longcall::Model;
    ///
    /// let args = serde_json::json!({});
    /// let mut ep = CallEndpoint::call_tool(Model::Task2026, "render", args, None, Config::default())?;
    /// let Event::Transmit(Transmit::Rpc { id, .. }) = ep.poll_event() else { unreachable!() };
    /// // A server that could not read the request answers with a `null` id.
    /// let parse_error = br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#;
    /// ep.handle_answer(0, id, parse_error);
    /// // The tools/call went unanswered: it is never sent again, and watching ends.
    /// let events: Vec<Event> = std::iter::from_fn(|| Some(ep.poll_event())).take(8).collect();
    /// assert!(events.iter().any(|e| matches!(e, Event::Stopped { .. })), "{events:?}");
    /// # Ok::<(), longcall::Error>(())
    /// ```
    pub fn handle_answer(&mut self, now: u64, id: u64, bytes: &[u8]) {
        self.handle_message(now, bytes);
        // A no-op when the message answered `id`: it is no longer in flight.
        self.handle_transport_failure(now, id);
    }

    /// A JSON-RPC message arrived (an answer or a notification), exactly as it arrived. On a
    /// transport that pairs answers with requests, prefer [`CallEndpoint::handle_answer`].
    pub fn handle_message(&mut self, now: u64, bytes: &[u8]) {
        self.on_message(now, bytes);
        self.asked_while_creating(now);
    }

    fn on_message(&mut self, now: u64, bytes: &[u8]) {
        if bytes.len() > self.config.limits.max_bytes {
            return self.too_large(now, bytes.len());
        }
        if self.fast_get(now, bytes) {
            return;
        }
        let message = match Message::parse_with(bytes, &self.config.limits) {
            Ok(m) => m,
            Err(e @ (Error::TooLarge { .. } | Error::TooDeep { .. })) => {
                let _ = e;
                return self.too_large(now, bytes.len());
            }
            Err(e) => return self.unreadable(now, None, &e),
        };
        let id = match &message {
            Message::Notification { .. } => {
                if let Ok(Some(r)) = read_notification(self.model, &message) {
                    self.violations(r.violations);
                    self.feed(now, r.input);
                }
                return;
            }
            Message::Request { id, method, params } => {
                return self.server_request(id, method, params.as_ref());
            }
            Message::Response { id, .. } | Message::Error { id, .. } => id.clone(),
        };
        let Some(index) = self.find(&id) else {
            self.violate(
                Rule::UnknownAnswerId,
                format!(
                    "an answer with id {} matches no request in flight",
                    id_text(&id)
                ),
            );
            return;
        };
        let pending = self.pending.remove(index);
        let asked = match &pending.request {
            None => Asked::Call,
            Some(r) => Asked::Tracker(r.kind()),
        };
        if self.config.detect_revision && pending.request.is_some() {
            let d = detect::from_message(&message);
            if let Some(m) = d.model.filter(|m| *m != self.model) {
                self.violate(
                    Rule::WrongRevisionMethod,
                    format!("a {m} answer to a {} request", self.model),
                );
            }
        }
        match read_answer(self.model, asked, &message) {
            Ok(r) => {
                self.violations(r.violations);
                let message = status_message(&r.input);
                let watching = !self.tracker.is_done();
                if let Err(e) = self.apply_answer(now, r.input) {
                    self.unreadable(now, Some(pending), &e);
                    return;
                }
                self.progress(message, watching);
                self.pump();
            }
            Err(e) => self.unreadable(now, Some(pending), &e),
        }
    }

    /// An HTTP answer to the request `request_ref` arrived: a job API's (a
    /// [`Transmit::Http`], rule E-7), or the response to the POST of a [`Transmit::Rpc`] over
    /// Streamable HTTP, read as [`CallEndpoint::handle_http_headers`] reads it.
    pub fn handle_http(&mut self, now: u64, request_ref: u64, answer: HttpAnswer<'_>) {
        self.handle_http_headers(now, request_ref, answer, &[]);
    }

    /// [`CallEndpoint::handle_http`] with the answer's headers, as they arrived: `Retry-After`
    /// (seconds or an HTTP date, measured from `now`) is read from them when `answer` does not
    /// carry it, and on the Open API its `x-sume-request-id` (D-5, D-7).
    ///
    /// For the POST of a [`Transmit::Rpc`] (rule E-67), hand over every answer, a 4xx or 5xx
    /// included: a JSON body is the JSON-RPC answer ([`CallEndpoint::handle_answer`]), a
    /// `text/event-stream` body's events are messages in order; a 4xx or 5xx that carries no
    /// JSON-RPC answer (a proxy's page, a 429) fails the request with its status and
    /// `Retry-After`, which hold the next poll back (P-4), and breaks no rule of MCP. (A 2025
    /// `tasks/result` stream that stays open while the person answers goes event by event to
    /// [`CallEndpoint::handle_message`] instead.)
    ///
    /// ```
    /// use longcall::endpoint::{CallEndpoint, Config, Event, HttpAnswer, Transmit};
    /// use longcall::Model;
    ///
    /// let mut ep = CallEndpoint::watch(Model::Task2026, "t1", Config::default())?;
    /// let Event::Transmit(Transmit::Rpc { id, .. }) = ep.poll_event() else { unreachable!() };
    /// let busy = HttpAnswer { status: 429, retry_after_ms: None, body: b"<h1>Slow down</h1>" };
    /// ep.handle_http_headers(1_000, id, busy, &[("Retry-After".into(), "5".into())]);
    /// let next = std::iter::from_fn(|| Some(ep.poll_event()))
    ///     .find_map(|e| if let Event::WakeAt { at } = e { Some(at) } else { None });
    /// assert!(next >= Some(6_000), "{next:?}");
    /// # Ok::<(), longcall::Error>(())
    /// ```
    pub fn handle_http_headers(
        &mut self,
        now: u64,
        request_ref: u64,
        answer: HttpAnswer<'_>,
        headers: &[(String, String)],
    ) {
        let answer = HttpAnswer {
            retry_after_ms: answer
                .retry_after_ms
                .or_else(|| crate::time::retry_after_header_ms(headers, now)),
            ..answer
        };
        self.on_http(now, request_ref, answer, headers);
        self.asked_while_creating(now);
    }

    fn on_http(
        &mut self,
        now: u64,
        request_ref: u64,
        answer: HttpAnswer<'_>,
        headers: &[(String, String)],
    ) {
        if self.model != Model::Job {
            return self.rpc_over_http(now, request_ref, answer, headers);
        }
        if self.submit.is_some()
            && self
                .pending
                .iter()
                .any(|p| p.id == request_ref && p.request.is_none())
        {
            self.pending.retain(|p| p.id != request_ref);
            if answer.body.len() > self.config.limits.max_bytes {
                return self.too_large(now, answer.body.len());
            }
            let body = crate::wire::read_json_with(answer.body, &self.config.limits).ok();
            return self.submit_answered(
                now,
                answer.status,
                headers,
                body.as_ref(),
                answer.retry_after_ms,
            );
        }
        if self.config.job_dialect == JobDialect::OpenApi {
            return self.open_api_answer(now, request_ref, answer, headers);
        }
        let Some(index) = self.pending.iter().position(|p| p.id == request_ref) else {
            self.violate(
                Rule::UnknownAnswerId,
                format!("an HTTP answer to request {request_ref}, which is not in flight"),
            );
            return;
        };
        let pending = self.pending.remove(index);
        let Some(request) = pending.request.clone() else {
            return;
        };
        if answer.body.len() > self.config.limits.max_bytes {
            return self.too_large(now, answer.body.len());
        }
        let body = crate::wire::read_json_with(answer.body, &self.config.limits).ok();
        let input = match (request.kind(), (200..300).contains(&answer.status)) {
            (RequestKind::Cancel, _) => match sume::cancel_answer(answer.status, body.as_ref()) {
                Ok(answer) => Input::CancelAnswered { answer },
                Err(e) => return self.unreadable(now, Some(pending), &e),
            },
            (kind, true) => match body.as_ref().map(sume::read_job) {
                Some(Ok(job)) => Input::JobPolled { job },
                Some(Err(e)) => return self.unreadable(now, Some(pending), &e),
                None => {
                    let e = Error::invalid_input("body", "a job answer must be JSON");
                    let _ = kind;
                    return self.unreadable(now, Some(pending), &e);
                }
            },
            (kind, false) => {
                let code = body
                    .as_ref()
                    .and_then(|b| sume::read_error(answer.status, b).ok())
                    .map(|e| e.code);
                Input::RequestFailed {
                    request: kind,
                    failure: Failure::Http {
                        status: answer.status,
                        code,
                        retry_after_ms: answer.retry_after_ms,
                    },
                }
            }
        };
        self.feed(now, input);
    }

    /// The request `request_ref` got no answer (a connection error, a local timeout). A job
    /// submit with no answer is reconciled with the same key (rule E-11).
    pub fn handle_transport_failure(&mut self, now: u64, request_ref: u64) {
        self.on_transport_failure(now, request_ref);
        self.asked_while_creating(now);
    }

    fn on_transport_failure(&mut self, now: u64, request_ref: u64) {
        let Some(index) = self.pending.iter().position(|p| p.id == request_ref) else {
            return;
        };
        let pending = self.pending.remove(index);
        if pending.request.is_none() && self.submit.is_some() {
            self.submit_answered(now, 0, &[], None, None);
            return;
        }
        self.lost(now, pending);
    }

    /// The HTTP response to the POST of JSON-RPC request `id` (rule E-67).
    fn rpc_over_http(
        &mut self,
        now: u64,
        id: u64,
        answer: HttpAnswer<'_>,
        headers: &[(String, String)],
    ) {
        // P-4: a 429 or 503 that carries a JSON-RPC error still says when to come back.
        if let (false, Some(ms)) = ((200..300).contains(&answer.status), answer.retry_after_ms) {
            self.tracker.handle_retry_after(now, ms);
        }
        let error_page = !(200..300).contains(&answer.status);
        crate::wire::sse::each_message(answer.status, headers, answer.body, |message| {
            // E-67: an error status whose body is not JSON-RPC (a gateway's own JSON) carries
            // no answer, and breaks no rule: the request fails with that status below.
            if error_page && Message::parse_with(message, &self.config.limits).is_err() {
                return;
            }
            self.on_message(now, message);
        });
        // No-ops when a message answered `id`: it is no longer in flight.
        let Some(index) = self.pending.iter().position(|p| p.id == id) else {
            return;
        };
        let pending = self.pending.remove(index);
        let failure = match (200..300).contains(&answer.status) {
            true => Failure::Transport,
            false => Failure::Http {
                status: answer.status,
                code: None,
                retry_after_ms: answer.retry_after_ms,
            },
        };
        self.lost_with(now, pending, failure);
    }

    /// An Open API answer to a status poll or a cancel (rule E-10): read by
    /// [`sume_open::answer_input`].
    fn open_api_answer(
        &mut self,
        now: u64,
        request_ref: u64,
        answer: HttpAnswer<'_>,
        headers: &[(String, String)],
    ) {
        let Some(index) = self.pending.iter().position(|p| p.id == request_ref) else {
            self.violate(
                Rule::UnknownAnswerId,
                format!("an HTTP answer to request {request_ref}, which is not in flight"),
            );
            return;
        };
        let pending = self.pending.remove(index);
        let Some(request) = pending.request.clone() else {
            return;
        };
        if answer.body.len() > self.config.limits.max_bytes {
            return self.too_large(now, answer.body.len());
        }
        let (kind, handle) = match &request {
            Request::Cancel { handle, .. } => (sume_open::OpenRequest::Cancel, handle.clone()),
            Request::Get { handle } if pending.result => {
                (sume_open::OpenRequest::Result, handle.clone())
            }
            Request::Get { handle } => (sume_open::OpenRequest::Status, handle.clone()),
            _ => return self.lost(now, pending),
        };
        let open = sume_open::OpenAnswer {
            request: kind,
            handle,
            status: answer.status,
            headers: headers.to_vec(),
            body: crate::wire::read_json_with(answer.body, &self.config.limits).ok(),
        };
        match sume_open::answer_input(&open, now) {
            Ok(mut input) => {
                // A Retry-After the host read itself counts when the headers did not carry it.
                if let Input::RequestFailed {
                    failure: Failure::Http { retry_after_ms, .. },
                    ..
                } = &mut input
                {
                    if retry_after_ms.is_none() {
                        *retry_after_ms = answer.retry_after_ms;
                    }
                }
                // D-10: a `completed` status carries no result; it is asked once, with
                // `GET /result`, and the job settles from that answer (a failed one counts as
                // a failed poll: the status is asked again).
                if let Input::JobPolled { job } = &input {
                    if kind == sume_open::OpenRequest::Status
                        && job.status == Status::Completed
                        && job.result.is_none()
                        && self.ask_result(request)
                    {
                        return;
                    }
                }
                // The result a resubmitted key's finished job was waiting for: the job is
                // created now, with it (or without it, when it could not be had).
                if self.result_before_created(&pending) {
                    return match input {
                        Input::JobPolled { job } => self.created_after_submit(now, job),
                        _ => self.lost(now, pending),
                    };
                }
                self.feed(now, input);
            }
            Err(e) => self.unreadable(now, Some(pending), &e),
        }
    }

    /// The user pressed cancel. Errors: a typed refusal (`cancel_refused`, the reason from the
    /// button's state); nothing goes on the wire.
    ///
    /// A press while the create (a job submit, a `tools/call`) is out unanswered is kept, in a
    /// snapshot too, and made once the answer names the call (E-65): the button stays
    /// `unavailable` until then, and a create that ends without naming one makes the press moot.
    pub fn cancel_pressed(&mut self, now: u64) -> Result<(), Error> {
        if self.creating() && !self.tracker.is_done() {
            self.cancel_asked = true;
            return Ok(());
        }
        self.cancel_asked = false;
        self.tracker.handle_input(now, Input::CancelPressed)?;
        self.pump();
        Ok(())
    }

    /// A person comes to look (a page reloaded, a job resumed from its record, a view back on
    /// screen): the next poll moves to the earliest time the floors allow (rule P-15). Then drain
    /// [`CallEndpoint::poll_event`] for the new [`Event::WakeAt`].
    pub fn handle_refresh(&mut self, now: u64) {
        self.tracker.handle_refresh(now);
    }

    /// The user answered input `key` (a task input, or an MRTR input of the call).
    pub fn answer_input(
        &mut self,
        now: u64,
        key: &str,
        response: impl Into<Json>,
    ) -> Result<(), Error> {
        let response = response.into();
        if self.server_keys.iter().any(|k| k == key) {
            return self.answer_server_input(key, response);
        }
        self.tracker.handle_input(
            now,
            Input::InputAnswered {
                key: key.into(),
                response,
            },
        )?;
        self.prompts
            .retain(|p| !matches!(p, Event::AskUser { key: k, .. } if k == key));
        self.pump();
        Ok(())
    }

    /// I-10: a 2025 task asks for input with requests of the server's own on its `tasks/result`
    /// stream, each naming the task in its related-task `_meta`. Each is asked once, keyed by
    /// its method and id, as `{method, params, id}`; one naming another task or none (a ping, an
    /// elicitation of the session) is not this call's to answer, and is left to the host.
    fn server_request(&mut self, id: &Id, method: &str, params: Option<&Value>) {
        let ours = self.model == Model::Task2025
            && self.tracker.handle().is_some()
            && params.and_then(mcp2025::related_task) == self.tracker.handle();
        let key = format!("{method}#{}", id_text(id));
        // I-6: once a cancel is pressed, no new prompt.
        if !ours || self.inputs_moot() || self.tracker.is_done() {
            return;
        }
        // R-7: a prompt of the old process, its request sent again: shown now, once.
        if let Some(i) = self.awaiting.iter().position(|k| *k == key) {
            self.awaiting.remove(i);
            let again = self
                .prompts
                .iter()
                .find(|p| matches!(p, Event::AskUser { key: k, .. } if *k == key));
            if let Some(again) = again.cloned() {
                self.queue.push_back(again);
            }
            return;
        }
        if self.server_keys.contains(&key) {
            // Answered already: the server did not get the reply (or replays its stream), and
            // gets the same answer again; the person is not asked twice.
            if let Some((_, response)) = self.replies.iter().find(|(k, _)| *k == key) {
                let response = response.clone();
                self.reply(id.clone(), &response);
            }
            return;
        }
        self.server_keys.push(key.clone());
        let mut request = serde_json::Map::new();
        request.insert("method".into(), Value::String(method.into()));
        request.insert("params".into(), params.cloned().unwrap_or(Value::Null));
        request.insert("id".into(), id.to_value());
        let ask = Event::AskUser {
            key,
            request: Value::Object(request).into(),
            call: false,
        };
        self.prompts.push_back(ask.clone());
        self.queue.push_back(ask);
    }

    /// A cancel was pressed and has not come back unanswered: input requests are moot (I-6).
    fn inputs_moot(&self) -> bool {
        !matches!(
            self.tracker.button(),
            ButtonState::Available | ButtonState::Unavailable
        )
    }

    fn answer_server_input(&mut self, key: &str, response: Json) -> Result<(), Error> {
        // The same refusals as a 2026 answer's (I-2, I-6, I-9).
        if !response.is_object() {
            return Err(Error::invalid_input(
                "response",
                "an input answer is a JSON object (an elicitation's {action, content})",
            ));
        }
        let refuse = |why| Err(Error::invalid_input("key", why));
        if self.tracker.is_done() {
            return refuse("the task already settled");
        }
        let Some(i) = self
            .prompts
            .iter()
            .position(|p| matches!(p, Event::AskUser { key: k, .. } if k == key))
        else {
            return refuse("this input key was already answered; a key is answered once");
        };
        if self.inputs_moot() {
            return refuse("the task is being cancelled; its input requests are moot");
        }
        let Some(Event::AskUser { request, .. }) = self.prompts.remove(i) else {
            return refuse("this input key was never asked");
        };
        self.awaiting.retain(|k| k != key);
        let id = Id::from_value(request.get("id").unwrap_or(&Value::Null))?;
        self.reply(id, &response);
        self.replies.push((key.into(), response));
        Ok(())
    }

    /// The JSON-RPC response to the server's request `id` (I-10).
    fn reply(&mut self, id: Id, response: &Json) {
        let built = build_reply(self.model, id, response.as_value().clone());
        let (text, headers) = on_the_wire(&built);
        self.queue
            .push_back(Event::Transmit(Transmit::Reply { text, headers }));
    }

    /// The prompts released ([`Event::AskUser`]) and not answered yet (R-7). After
    /// [`CallEndpoint::restore`], show these again: the person who saw them is gone with the old
    /// process, and the core does not ask a key twice. Answer each with
    /// [`CallEndpoint::answer_input`]. Empty once the call ended.
    ///
    /// On 2025 a prompt is a request of the server's (I-10), answered by a reply to its id on
    /// the connection it came on, which ended with the old process: after a restore it is not
    /// listed here, and comes again as an [`Event::AskUser`] when the server sends its request
    /// again (the same id). A server that asks anew does so under a new key, asked once; either
    /// way the person sees the question once.
    pub fn open_prompts(&self) -> impl Iterator<Item = (&str, &Json, bool)> {
        let ended = self.tracker.is_done();
        self.prompts.iter().filter_map(move |p| match p {
            Event::AskUser { key, request, call } if !ended && !self.awaiting.contains(key) => {
                Some((key.as_str(), request, *call))
            }
            _ => None,
        })
    }

    /// The host stops watching (the call goes on). While the create is out (a job submit or a
    /// `tools/call` not answered yet), the stop waits for its answer (E-62): the call is watched
    /// until the answer names it, then stops with its handle kept; a create that gets no answer
    /// ends `create_unanswered`, as without a stop. A snapshot keeps the stop asked.
    pub fn stop_watching(&mut self, now: u64) {
        if self.creating() && !self.tracker.is_done() {
            self.stop_asked = true;
            return;
        }
        self.stop_asked = false;
        let _ = self.tracker.handle_input(now, Input::StopWatching);
        self.pump();
    }

    /// What the user and the host asked while the create was out, once it is answered: the
    /// cancel press (E-65), then the stop (E-62). A press the button's state now refuses (the
    /// job already started, the call settled by its answer) is dropped: the button says why.
    fn asked_while_creating(&mut self, now: u64) {
        if self.creating() {
            return;
        }
        if self.cancel_asked {
            let _ = self.cancel_pressed(now);
        }
        if self.stop_asked {
            self.stop_watching(now);
        }
    }

    // --- inside -------------------------------------------------------------------------

    fn take_id(&mut self) -> u64 {
        let id = self.next_id;
        self.next_id = self.next_id.saturating_add(1);
        id
    }

    fn find(&self, id: &Id) -> Option<usize> {
        let Id::Number(n) = id else { return None };
        let n = u64::try_from(*n).ok()?;
        self.pending.iter().position(|p| p.id == n)
    }

    /// The allocation-light path for the commonest answer: a 2026 `tasks/get` that is not
    /// terminal and asks nothing goes to the tracker as numbers.
    fn fast_get(&mut self, now: u64, bytes: &[u8]) -> bool {
        if self.model != Model::Task2026 {
            return false;
        }
        let Some(index) = self
            .pending
            .iter()
            .position(|p| matches!(p.request, Some(Request::Get { .. })))
        else {
            return false;
        };
        // What the borrowed read leaves (error answers, escaped keys, ...) the general path reads.
        let Some((id, p)) = mcp2026::scan_get_response(bytes, &self.config.limits) else {
            return false;
        };
        let task = &p.value;
        let pending_id = self.pending.get(index).map(|p| p.id);
        if self.find(&id).is_none_or(|i| Some(i) != Some(index))
            || pending_id.is_none()
            || task.status.is_terminal()
            || !task.input_requests.is_empty()
            // An answer that breaks a shape rule takes the full path, which also checks the
            // revision (E-4); clean answers stay on the fast one.
            || !p.violations.is_empty()
            || self.tracker.handle() != Some(task.task_id.as_str())
        {
            return false;
        }
        self.pending.remove(index);
        let polled = Polled {
            status: task.status,
            poll_interval_ms: task.poll_interval_ms,
            ttl_ms: task.ttl_ms,
            payload: Payload::NONE,
        };
        let message = task.status_message.clone();
        let watching = !self.tracker.is_done();
        match self.tracker.handle_polled(now, polled) {
            Ok(()) => {
                self.answered_again();
                self.progress(message, watching);
            }
            Err(e) => self.violate(Rule::UnreadableAnswer, e.to_string()),
        }
        self.pump();
        true
    }

    fn feed(&mut self, now: u64, input: Input) {
        let message = status_message(&input);
        let watching = !self.tracker.is_done();
        match self.apply_answer(now, input) {
            Ok(()) => self.progress(message, watching),
            // Only answers reach here; one the tracker refuses broke a rule (E-2).
            Err(e) => self.violate(Rule::UnreadableAnswer, e.to_string()),
        }
        self.pump();
    }

    /// Gives the tracker an answer, or a request's failure, and says when the server stopped
    /// answering a watched call and when it answered again (E-63).
    fn apply_answer(&mut self, now: u64, input: Input) -> Result<(), Error> {
        let failed = match &input {
            Input::RequestFailed { request, failure }
                if !matches!(request, RequestKind::Cancel | RequestKind::ContinueCall) =>
            {
                Some((*request, failure.clone()))
            }
            _ => None,
        };
        let answered = !matches!(
            input,
            Input::RequestFailed { .. } | Input::CreateUnanswered | Input::AnswerTooLarge { .. }
        );
        self.tracker.handle_input(now, input)?;
        match failed {
            Some((request, failure)) if !self.tracker.is_done() => {
                self.failing = true;
                self.queue
                    .push_back(Event::RequestFailed { request, failure });
            }
            None if answered => self.answered_again(),
            _ => {}
        }
        Ok(())
    }

    /// An answer came: the first after failed requests is said as the recovery (E-63), whichever
    /// reader read it.
    fn answered_again(&mut self) {
        if self.failing {
            self.failing = false;
            self.queue.push_back(Event::Recovered);
        }
    }

    /// E-61: a task's `statusMessage` that differs from the last one given, from an answer
    /// that came while the call was watched (`watching`: not done before the answer was fed).
    /// The answer that settles the call counts: its words (a failure's or a server cancel's
    /// reason) come before the outcome.
    fn progress(&mut self, message: Option<String>, watching: bool) {
        if let Some(message) = message {
            if self.progress.as_ref() != Some(&message) && watching {
                self.progress = Some(message.clone());
                self.queue.push_back(Event::Progress { message });
            }
        }
    }

    fn too_large(&mut self, now: u64, size: usize) {
        let request = match self.pending.as_slice() {
            [one] => one.request.as_ref().map(Request::kind),
            _ => None,
        };
        self.pending.clear();
        self.feed(
            now,
            Input::AnswerTooLarge {
                request,
                size: size as u64,
                limit: self.config.limits.max_bytes as u64,
            },
        );
    }

    /// Rule E-2.
    fn unreadable(&mut self, now: u64, pending: Option<Pending>, e: &Error) {
        self.violate(
            Rule::UnreadableAnswer,
            format!("{} ({})", e, Quoted(e.code())),
        );
        let pending = match pending {
            Some(p) => Some(p),
            None if self.pending.len() == 1 => self.pending.pop(),
            None => None,
        };
        if let Some(p) = pending {
            self.lost(now, p);
        } else {
            self.pump();
        }
    }

    /// Sends `GET /result` for the job `request` polls (D-10); false when its id cannot be put
    /// in a path (nothing sent then).
    fn ask_result(&mut self, request: Request) -> bool {
        let Request::Get { handle } = &request else {
            return false;
        };
        let Ok(r) = sume_open::result_request(handle) else {
            return false;
        };
        let id = self.take_id();
        self.pending.push(Pending {
            id,
            request: Some(request),
            result: true,
        });
        self.queue.push_back(Event::Transmit(Transmit::Http {
            request_ref: id,
            method: r.method,
            path: r.path,
            headers: r.headers,
            body: r.body,
        }));
        true
    }

    /// Whether `p` is the `GET /result` of a submit answered with its job finished (D-10): the
    /// tracker has not heard of the job yet.
    fn result_before_created(&self, p: &Pending) -> bool {
        p.result && self.submit.is_some()
    }

    /// The submit is answered for good: the tracker hears of the job.
    fn created_after_submit(&mut self, now: u64, job: JobView) {
        self.submit = None;
        self.feed(now, Input::JobCreated { job });
    }

    fn lost(&mut self, now: u64, pending: Pending) {
        self.lost_with(now, pending, Failure::Transport);
    }

    /// A request that got no answer the rules can read: `failure` says what came instead. A
    /// create with none is unanswered, whatever came (never sent again: E-2).
    fn lost_with(&mut self, now: u64, pending: Pending, failure: Failure) {
        // The result of a resubmitted key's finished job could not be had: the job is created
        // finished, without it (its outcome is known; the host can fetch the result).
        if self.result_before_created(&pending) {
            if let Some(Request::Get { handle }) = pending.request {
                let job = JobView {
                    id: handle,
                    status: Status::Completed,
                    result: None,
                    error: None,
                };
                return self.created_after_submit(now, job);
            }
        }
        let Some(request) = pending.request else {
            return self.stop_unanswered(now, failure);
        };
        let kind = request.kind();
        let input = Input::RequestFailed {
            request: kind,
            failure: failure.clone(),
        };
        self.feed(now, input);
        // The MRTR continuation is a tools/call too: its stop says what came back (E-68).
        if kind == RequestKind::ContinueCall {
            self.say_what_came(failure);
        }
    }

    /// Ends the create unanswered; an HTTP answer that came instead goes with the stop (E-68).
    fn stop_unanswered(&mut self, now: u64, failure: Failure) {
        self.feed(now, Input::CreateUnanswered);
        self.say_what_came(failure);
    }

    /// E-68: an HTTP answer that came instead of a `tools/call`'s goes with its stop.
    fn say_what_came(&mut self, failure: Failure) {
        if let Failure::Http { .. } = failure {
            let mut failure = Some(failure);
            for event in self.queue.iter_mut().rev() {
                if let Event::Stopped {
                    reason: StopReason::CreateUnanswered,
                    failure: slot @ None,
                } = event
                {
                    *slot = failure.take();
                    break;
                }
            }
        }
    }

    fn violations(&mut self, vs: Vec<Violation>) {
        for violation in vs {
            self.queue.push_back(Event::Violation { violation });
        }
    }

    fn violate(&mut self, rule: Rule, detail: String) {
        self.queue.push_back(Event::Violation {
            violation: Violation::new(rule, detail),
        });
    }

    /// Moves the tracker's outputs into events, turning requests into transmits.
    fn pump(&mut self) {
        loop {
            match self.tracker.poll_output() {
                Output::WakeAt { .. } | Output::Idle => return,
                Output::Send { request } => self.emit_request(request),
                Output::AskUser { key, request, call } => {
                    let ask = Event::AskUser { key, request, call };
                    // A deque, as the queue: its reader is already in the module.
                    self.prompts.push_back(ask.clone());
                    self.queue.push_back(ask);
                }
                // A press held while the create was out (E-65) is made right after the answer
                // that makes the button available: that `available` never stood for the user,
                // who had pressed, and is not said before the press's own state.
                Output::Button { state }
                    if self.cancel_asked && state == ButtonState::Available => {}
                Output::Button { state } => self.queue.push_back(Event::Button { state }),
                Output::Status { status } => self.queue.push_back(Event::Status { status }),
                Output::Violation { violation } => {
                    self.queue.push_back(Event::Violation { violation })
                }
                Output::Settled {
                    outcome,
                    status,
                    result,
                    error,
                } => {
                    self.pending.clear();
                    self.prompts.clear();
                    self.queue.push_back(Event::Settled {
                        outcome,
                        status,
                        result,
                        error,
                    })
                }
                Output::Stopped { reason } => {
                    // E-70: a round stopped before its continuation keeps its prompts, asked
                    // again when the call is watched again.
                    if !self.tracker.round_open() {
                        self.prompts.clear();
                    }
                    self.queue.push_back(Event::Stopped {
                        reason,
                        failure: None,
                    })
                }
            }
        }
    }

    fn emit_request(&mut self, request: Request) {
        let id = self.take_id();
        let transmit = if self.model == Model::Job {
            self.job_transmit(id, &request)
        } else {
            let built = match (&request, &self.call) {
                (Request::ContinueCall { .. }, Some(call)) => build_continuation(
                    Id::Number(id as i64),
                    &call.name,
                    call.arguments.clone(),
                    &request,
                ),
                _ => build_request(self.model, &request, Id::Number(id as i64)),
            };
            built.map(|b| rpc(id, &self.stamped(b)))
        };
        match transmit {
            Ok(t) => {
                self.pending.push(Pending {
                    id,
                    request: Some(request),
                    result: false,
                });
                self.queue.push_back(Event::Transmit(t));
            }
            // Only a request the revision lacks fails to build, and the tracker never asks
            // for one; say so rather than drop it silently.
            Err(e) => self.violate(Rule::WrongRevisionMethod, e.to_string()),
        }
    }

    /// A built request as this endpoint sends it: naming the host's client on 2026 (M-21).
    fn stamped(&self, mut built: Built) -> Built {
        if let Some(me) = &self.config.client_info {
            mcp2026::set_client_info(&mut built.message, me);
        }
        built
    }

    fn job_transmit(&self, id: u64, request: &Request) -> Result<Transmit, Error> {
        if self.config.job_dialect == JobDialect::OpenApi {
            let r = match request {
                Request::Get { handle } => sume_open::status_request(handle)?,
                Request::Cancel { handle, .. } => sume_open::cancel_request(handle)?,
                _ => {
                    return Err(Error::invalid_input(
                        "request",
                        "jobs have only get and cancel",
                    ))
                }
            };
            return Ok(Transmit::Http {
                request_ref: id,
                method: r.method,
                path: r.path,
                headers: r.headers,
                body: r.body,
            });
        }
        let routes = &self.config.job_routes;
        let (route, body, key) = match request {
            Request::Get { .. } => (&routes.get, None, None),
            Request::Cancel {
                handle,
                idempotency_key,
            } => {
                let key = idempotency_key
                    .clone()
                    .unwrap_or_else(|| format!("{handle}:cancel"));
                let body = sume::cancel_request(handle, &key)?;
                (&routes.cancel, Some(crate::json_text(&body)), Some(key))
            }
            _ => {
                return Err(Error::invalid_input(
                    "request",
                    "jobs have only get and cancel",
                ))
            }
        };
        let handle = match request {
            Request::Get { handle } | Request::Cancel { handle, .. } => handle.as_str(),
            _ => "",
        };
        let mut headers = Vec::new();
        if let Some(k) = key {
            headers.push(("Idempotency-Key".into(), k));
        }
        if body.is_some() {
            headers.push(("Content-Type".into(), "application/json".into()));
        }
        Ok(Transmit::Http {
            request_ref: id,
            method: route.0.clone(),
            path: route.1.replace("{id}", handle),
            headers,
            body,
        })
    }
}

fn rpc(id: u64, built: &Built) -> Transmit {
    let (text, headers) = on_the_wire(built);
    Transmit::Rpc { id, text, headers }
}

/// A built message as the text and header pairs a transmit carries.
fn on_the_wire(built: &Built) -> (String, Vec<(String, String)>) {
    let headers = built
        .headers
        .iter()
        .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
        .collect();
    (crate::json_text(&built.message), headers)
}

fn id_text(id: &Id) -> String {
    match id {
        Id::Number(n) => format!("{n}"),
        Id::String(s) => format!("{}", Quoted(s)),
        Id::Null => "null".into(),
    }
}

/// The error object of a job API's error envelope (`{error: {code, message, ...}}`), which a
/// refused submit settles with, as a failed job settles with its own error (E-11); a body
/// without one is kept as it came.
fn api_error(body: Value) -> Value {
    match body {
        Value::Object(mut envelope) if envelope.get("error").is_some_and(Value::is_object) => {
            envelope.remove("error").unwrap_or(Value::Null)
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;
    use serde_json::json;

    fn drain(ep: &mut CallEndpoint) -> Vec<Event> {
        let mut out = Vec::new();
        loop {
            let e = ep.poll_event();
            let last = matches!(e, Event::WakeAt { .. } | Event::Idle);
            out.push(e);
            if last {
                return out;
            }
        }
    }

    fn sent(events: &[Event]) -> Vec<(u64, Value)> {
        events
            .iter()
            .filter_map(|e| match e {
                Event::Transmit(Transmit::Rpc { id, text, .. }) => {
                    Some((*id, serde_json::from_str(text).unwrap()))
                }
                _ => None,
            })
            .collect()
    }

    const TASK: &str = r#""taskId":"t1","createdAt":"2026-01-01T00:00:00Z","lastUpdatedAt":"2026-01-01T00:00:00Z","ttlMs":null"#;

    fn answer(id: u64, result: &str) -> String {
        format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{result}}}"#)
    }

    /// A 2026 result for task `t1` in `status` (`working` as the creating answer, else as a
    /// `tasks/get` answer), `more` members appended.
    fn task(status: &str, more: &str) -> String {
        let result_type = if status == "working" {
            "task"
        } else {
            "complete"
        };
        format!(
            r#"{{"resultType":"{result_type}","taskId":"t1","status":"{status}","createdAt":"2026-11-29T15:07:54Z","lastUpdatedAt":"2026-11-29T15:07:54Z","ttlMs":null,"pollIntervalMs":5{more}}}"#
        )
    }

    fn config() -> Config {
        let mut c = Config::default();
        c.tracker.poll.jitter = crate::poll::Jitter::None;
        c
    }

    /// Rules E-1, P-13.

    #[test]
    fn task_call_poll_settle_with_payload() {
        let mut ep =
            CallEndpoint::call_tool(Model::Task2026, "render", json!({"n": 1}), None, config())
                .unwrap();
        let out = drain(&mut ep);
        let s = sent(&out);
        assert_eq!(s[0].0, 1);
        assert_eq!(s[0].1["method"], "tools/call");
        let created =
            format!(r#"{{"resultType":"task",{TASK},"status":"working","pollIntervalMs":1000}}"#);
        ep.handle_message(5, answer(1, &created).as_bytes());
        let out = drain(&mut ep);
        assert_eq!(out.last(), Some(&Event::WakeAt { at: 1005 }));
        ep.handle_timeout(1005);
        let out = drain(&mut ep);
        let s = sent(&out);
        assert_eq!((s[0].0, s[0].1["method"].as_str()), (2, Some("tasks/get")));
        // Working: the numbers-only path; the stated interval is followed.
        let working = format!(
            r#"{{"resultType":"complete",{TASK},"status":"working","pollIntervalMs":1000}}"#
        );
        ep.handle_message(1010, answer(2, &working).as_bytes());
        assert_eq!(drain(&mut ep), vec![Event::WakeAt { at: 2010 }]);
        ep.handle_timeout(2010);
        let _ = drain(&mut ep);
        let done = format!(
            r#"{{"resultType":"complete",{TASK},"status":"completed","result":{{"content":[]}}}}"#
        );
        ep.handle_message(2020, answer(3, &done).as_bytes());
        let out = drain(&mut ep);
        assert!(out.contains(&Event::Settled {
            outcome: Outcome::Succeeded,
            status: Some(Status::Completed),
            result: Some(json!({"content": []}).into()),
            error: None,
        }));
    }

    /// Rule M-21: every 2026 request carries the stateless envelope, naming the host's client
    /// when it names one (kept across a restore), longcall otherwise; 2025 requests do not, and
    /// an identity a 2025 endpoint would never send is refused.
    #[test]
    fn every_2026_request_names_the_protocol_and_the_client() {
        let envelope = |v: &Value| {
            let meta = &v["params"]["_meta"];
            (
                meta[mcp2026::PROTOCOL_VERSION_META].clone(),
                meta[mcp2026::CLIENT_INFO_META].clone(),
                meta[mcp2026::CLIENT_CAPABILITIES_META]["extensions"][mcp2026::EXTENSION].clone(),
            )
        };
        let me = ClientInfo {
            name: "studio".into(),
            version: "2.1.0".into(),
        };
        let named = Config {
            client_info: Some(me.clone()),
            ..config()
        };
        let mut ep =
            CallEndpoint::call_tool(Model::Task2026, "render", json!({}), None, named.clone())
                .unwrap();
        let mut requests = sent(&drain(&mut ep));
        let created = format!(r#"{{"resultType":"task",{TASK},"status":"working"}}"#);
        ep.handle_message(5, answer(1, &created).as_bytes());
        let _ = drain(&mut ep);
        ep.handle_timeout(10_000);
        requests.extend(sent(&drain(&mut ep)));
        let mut ep = CallEndpoint::restore(&ep.snapshot().unwrap(), 10_001).unwrap();
        ep.cancel_pressed(10_002).unwrap();
        requests.extend(sent(&drain(&mut ep)));
        let methods: Vec<_> = requests.iter().map(|(_, v)| v["method"].clone()).collect();
        assert_eq!(
            methods,
            [
                json!("tools/call"),
                json!("tasks/get"),
                json!("tasks/cancel")
            ]
        );
        for (_, v) in &requests {
            assert_eq!(
                envelope(v),
                (
                    json!("2026-07-28"),
                    json!({"name": "studio", "version": "2.1.0"}),
                    json!({})
                ),
                "{v}"
            );
        }
        let mut plain = CallEndpoint::watch(Model::Task2026, "t1", config()).unwrap();
        let (_, get) = &sent(&drain(&mut plain))[0];
        assert_eq!(
            envelope(get).1,
            json!({"name": "longcall", "version": env!("CARGO_PKG_VERSION")})
        );
        let mut old = CallEndpoint::watch(Model::Task2025, "t1", config()).unwrap();
        let (_, get) = &sent(&drain(&mut old))[0];
        assert_eq!(get["params"].get("_meta"), None);
        for model in [Model::Task2025, Model::Job] {
            let e = CallEndpoint::watch(model, "t1", named.clone()).unwrap_err();
            assert_eq!(e.code(), "invalid_config");
            assert!(e.to_string().contains("client_info"), "{e}");
        }
        // A snapshot of a 2025 endpoint cannot be made to name a client it never sends.
        let text = old.snapshot().unwrap();
        let edited = text.replacen(
            r#""config":{"#,
            r#""config":{"client_info":{"name":"x","version":"1"},"#,
            1,
        );
        assert_ne!(edited, text);
        assert_eq!(
            CallEndpoint::restore(&edited, 1).unwrap_err().code(),
            "snapshot_invalid"
        );
    }

    fn header(name: &str, value: &str) -> Vec<(String, String)> {
        vec![(name.into(), value.into())]
    }

    /// A 2026 endpoint watching `t1`, its first `tasks/get` out: (endpoint, its id).
    fn polling() -> (CallEndpoint, u64) {
        let mut ep = CallEndpoint::watch(Model::Task2026, "t1", config()).unwrap();
        let id = sent(&drain(&mut ep))[0].0;
        (ep, id)
    }

    /// The outcome the events settled with, if they did.
    fn settled(events: &[Event]) -> Option<Outcome> {
        events.iter().find_map(|e| match e {
            Event::Settled { outcome, .. } => Some(*outcome),
            _ => None,
        })
    }

    fn violations(events: &[Event]) -> Vec<Rule> {
        events
            .iter()
            .filter_map(|e| match e {
                Event::Violation { violation } => Some(violation.rule),
                _ => None,
            })
            .collect()
    }

    /// Rule E-67: a 429 (or 503) to a poll's POST that carries no JSON-RPC answer fails the
    /// poll with its status, and its Retry-After holds the next poll back (P-4); it is no
    /// unreadable answer, so no rule of MCP is said to be broken.
    #[test]
    fn an_http_error_page_to_a_poll_is_a_failure_with_its_retry_after() {
        for (status, body) in [(429, "<h1>Too many</h1>"), (503, ""), (502, "Bad gateway")] {
            let (mut ep, id) = polling();
            ep.handle_http_headers(
                1_000,
                id,
                http(status, body.as_bytes()),
                &header("Retry-After", "5"),
            );
            let out = drain(&mut ep);
            assert_eq!(violations(&out), [], "{status}: {out:?}");
            assert_eq!(out.last(), Some(&Event::WakeAt { at: 6_000 }), "{status}");
            ep.handle_timeout(6_000);
            let again = sent(&drain(&mut ep));
            assert_eq!(again[0].1["method"], "tasks/get", "{status}: polled again");
        }
    }

    /// Rule P-4: a 429 or 503 whose body is a JSON-RPC error is read as that error, and its
    /// Retry-After still holds the next poll back (the backoff alone polled again at once).
    #[test]
    fn a_json_rpc_error_in_a_429_keeps_its_retry_after() {
        for status in [429, 503] {
            let (mut ep, id) = polling();
            let error = format!(
                r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":-32000,"message":"slow down"}}}}"#
            );
            ep.handle_http_headers(
                1_000,
                id,
                http(status, error.as_bytes()),
                &header("Retry-After", "10"),
            );
            let out = drain(&mut ep);
            assert_eq!(
                out.last(),
                Some(&Event::WakeAt { at: 11_000 }),
                "{status}: {out:?}"
            );
        }
    }

    /// Rule E-67: a JSON-RPC error carried by a 4xx is read as the answer it is, and a 2xx
    /// body is read as `handle_answer` reads it (an HTML page there is unreadable, E-2).
    #[test]
    fn a_json_rpc_answer_in_any_http_status_is_read_as_the_answer() {
        let (mut ep, id) = polling();
        let unknown = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":-32602,"message":"Unknown task"}}}}"#
        );
        ep.handle_http(10, id, http(404, unknown.as_bytes()));
        let out = drain(&mut ep);
        assert_eq!(settled(&out), Some(Outcome::Lost), "{out:?}");

        let (mut ep, id) = polling();
        ep.handle_http(
            10,
            id,
            http(
                200,
                answer(id, &task("completed", r#","result":{"content":[]}"#)).as_bytes(),
            ),
        );
        let out = drain(&mut ep);
        assert_eq!(settled(&out), Some(Outcome::Succeeded), "{out:?}");

        let (mut ep, id) = polling();
        ep.handle_http(10, id, http(200, b"<html>"));
        let out = drain(&mut ep);
        assert_eq!(violations(&out), [Rule::UnreadableAnswer], "{out:?}");
    }

    /// Rule E-67: an event-stream answer's events are messages in order: a progress
    /// notification, then the answer.
    #[test]
    fn an_event_stream_answer_is_read_event_by_event() {
        let (mut ep, id) = polling();
        let body = format!(
            "event: message\ndata: {}\n\ndata: {}\n\n",
            r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}"#,
            answer(id, &task("completed", r#","result":{"content":[]}"#)),
        );
        ep.handle_http_headers(
            10,
            id,
            http(200, body.as_bytes()),
            &header("content-type", "text/event-stream"),
        );
        let out = drain(&mut ep);
        assert_eq!(settled(&out), Some(Outcome::Succeeded), "{out:?}");
        // A stream that ends without the answer leaves the poll unanswered: asked again.
        let (mut ep, id) = polling();
        ep.handle_http_headers(
            10,
            id,
            http(200, b": ping\n\n"),
            &header("Content-Type", "text/event-stream"),
        );
        let out = drain(&mut ep);
        assert_eq!(violations(&out), [], "{out:?}");
        assert!(matches!(out.last(), Some(Event::WakeAt { .. })), "{out:?}");
    }

    /// Rule M-20: a create answer whose interval is no count still names the task, which is
    /// watched (before, the whole answer was unreadable and the running task was lost).
    #[test]
    fn a_create_answer_with_a_bad_interval_is_watched() {
        let mut ep =
            CallEndpoint::call_tool(Model::Task2026, "render", json!({}), None, config()).unwrap();
        let id = sent(&drain(&mut ep))[0].0;
        let created =
            format!(r#"{{"resultType":"task",{TASK},"status":"working","pollIntervalMs":-5}}"#);
        ep.handle_answer(5, id, answer(id, &created).as_bytes());
        let out = drain(&mut ep);
        assert_eq!(violations(&out), [Rule::MissingField], "{out:?}");
        assert_eq!(ep.tracker().handle(), Some("t1"));
        let at = match out.last() {
            Some(Event::WakeAt { at }) => *at,
            other => panic!("{other:?}"),
        };
        ep.handle_timeout(at);
        assert_eq!(sent(&drain(&mut ep))[0].1["method"], "tasks/get");
    }

    /// Rules E-67, E-68: a `tools/call` whose POST got a 5xx page is unanswered, never sent
    /// again, and the stop carries the page's status and Retry-After.
    #[test]
    fn an_http_error_page_to_a_tools_call_leaves_it_unanswered() {
        let mut ep =
            CallEndpoint::call_tool(Model::Task2026, "render", json!({}), None, config()).unwrap();
        let id = sent(&drain(&mut ep))[0].0;
        ep.handle_http_headers(5, id, http(503, b"busy"), &header("retry-after", "1"));
        let out = drain(&mut ep);
        // E-68: the stop says what came back, Retry-After included.
        assert!(
            out.contains(&Event::Stopped {
                reason: StopReason::CreateUnanswered,
                failure: Some(Failure::Http {
                    status: 503,
                    code: None,
                    retry_after_ms: Some(1000),
                }),
            }),
            "{out:?}"
        );
        assert_eq!(sent(&out), []);
    }

    /// Rules E-67, E-68: an error status whose body is a gateway's own JSON (no JSON-RPC) is no
    /// answer and breaks no rule; the MRTR continuation, a `tools/call` too, stops saying so.
    #[test]
    fn a_gateway_json_page_and_a_refused_continuation_say_what_came_back() {
        let stopped = |out: &[Event]| {
            out.iter()
                .find_map(|e| match e {
                    Event::Stopped { reason, failure } => Some((*reason, failure.clone())),
                    _ => None,
                })
                .expect("stopped")
        };
        let refused = Some(Failure::Http {
            status: 429,
            code: None,
            retry_after_ms: Some(2000),
        });
        let mut ep =
            CallEndpoint::call_tool(Model::Task2026, "render", json!({}), None, config()).unwrap();
        let id = sent(&drain(&mut ep))[0].0;
        let json_page = HttpAnswer {
            status: 429,
            retry_after_ms: Some(2000),
            body: br#"{"error":"slow down"}"#,
        };
        ep.handle_http_headers(
            5,
            id,
            json_page,
            &header("content-type", "application/json"),
        );
        let out = drain(&mut ep);
        assert_eq!(
            stopped(&out),
            (StopReason::CreateUnanswered, refused.clone())
        );
        assert!(
            !out.iter().any(|e| matches!(e, Event::Violation { .. })),
            "{out:?}"
        );

        let mut ep =
            CallEndpoint::call_tool(Model::Task2026, "render", json!({}), None, config()).unwrap();
        let id = sent(&drain(&mut ep))[0].0;
        let waiting = r#"{"resultType":"input_required","requestState":"s1"}"#;
        ep.handle_message(5, answer(id, waiting).as_bytes());
        let Some(Event::WakeAt { at }) = drain(&mut ep).pop() else {
            panic!("the continuation is armed")
        };
        ep.handle_timeout(at);
        let continuation = sent(&drain(&mut ep))[0].0;
        let page = HttpAnswer {
            status: 429,
            retry_after_ms: Some(2000),
            body: b"slow down",
        };
        ep.handle_http(at + 5, continuation, page);
        let out = drain(&mut ep);
        assert_eq!(stopped(&out), (StopReason::CreateUnanswered, refused));
        assert_eq!(sent(&out), []);
    }

    /// Rule E-1: on a paired transport, what came back for a poll and answers another id (a
    /// string echoed for a number, `null` for a request the server could not read) leaves the
    /// poll unanswered, so it is asked again; `handle_message` only reports such an answer.
    #[test]
    fn a_paired_answer_that_answers_another_id_leaves_its_request_unanswered() {
        let parse_error =
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#;
        let string_id = format!(
            r#"{{"jsonrpc":"2.0","id":"1","result":{}}}"#,
            task("working", "")
        );
        for text in [string_id.as_str(), parse_error] {
            let echoed = &text[..40];
            let mut ep = CallEndpoint::watch(Model::Task2026, "t1", config()).unwrap();
            let _ = drain(&mut ep);
            let mut unpaired = ep.clone();
            unpaired.handle_message(10, text.as_bytes());
            let out = drain(&mut unpaired);
            assert_eq!(out.last(), Some(&Event::Idle), "{echoed}: {out:?}");
            ep.handle_answer(10, 1, text.as_bytes());
            let out = drain(&mut ep);
            assert!(out.iter().any(|e| matches!(
                e,
                Event::Violation { violation } if violation.rule == Rule::UnknownAnswerId
            )));
            let Some(Event::WakeAt { at }) = out.last().cloned() else {
                panic!("{echoed}: nothing armed: {out:?}");
            };
            ep.handle_timeout(at);
            let again = sent(&drain(&mut ep));
            assert_eq!(again.len(), 1, "{echoed}");
            assert_eq!(again[0].1["method"], "tasks/get", "{echoed}");
        }
    }

    /// Rule E-4.
    #[test]
    fn an_answer_of_the_other_revision_is_reported() {
        let mut ep = CallEndpoint::watch(Model::Task2026, "t1", config()).unwrap();
        let _ = drain(&mut ep);
        // A 2025 answer (`ttl`, `pollInterval`) to a 2026 tasks/get.
        let t25 = r#"{"taskId":"t1","status":"working","createdAt":"2026-01-01T00:00:00Z","lastUpdatedAt":"2026-01-01T00:00:00Z","ttl":60000,"pollInterval":500}"#;
        ep.handle_message(1, answer(1, t25).as_bytes());
        let out = drain(&mut ep);
        assert!(out.iter().any(
            |e| matches!(e, Event::Violation { violation } if violation.rule == Rule::WrongRevisionMethod)
        ), "{out:?}");
        // Turned off, the same answer is only read.
        let mut c = config();
        c.detect_revision = false;
        let mut ep = CallEndpoint::watch(Model::Task2026, "t1", c).unwrap();
        let _ = drain(&mut ep);
        ep.handle_message(1, answer(1, t25).as_bytes());
        assert!(!drain(&mut ep).iter().any(
            |e| matches!(e, Event::Violation { violation } if violation.rule == Rule::WrongRevisionMethod)
        ));
    }

    /// Rules E-1, E-2, E-6.

    #[test]
    fn unknown_id_and_unreadable_answers_are_violations() {
        let mut ep = CallEndpoint::watch(Model::Task2026, "t1", config()).unwrap();
        let out = drain(&mut ep);
        assert_eq!(sent(&out)[0].1["method"], "tasks/get");
        ep.handle_message(1, answer(99, "{}").as_bytes());
        let out = drain(&mut ep);
        assert!(
            matches!(&out[0], Event::Violation { violation } if violation.rule == Rule::UnknownAnswerId)
        );
        // Garbage with one request in flight: that poll counts as lost and is re-armed.
        ep.handle_message(2, b"not json");
        let out = drain(&mut ep);
        assert!(
            matches!(&out[0], Event::Violation { violation } if violation.rule == Rule::UnreadableAnswer)
        );
        assert!(matches!(out.last(), Some(Event::WakeAt { .. })));
    }

    /// Rules E-3.

    #[test]
    fn over_limit_answer_stops_never_hangs() {
        let mut c = config();
        c.limits.max_bytes = 64;
        let mut ep = CallEndpoint::watch(Model::Task2026, "t1", c).unwrap();
        let _ = drain(&mut ep);
        let big = answer(1, &format!(r#"{{"x":"{}"}}"#, "a".repeat(100)));
        ep.handle_message(1, big.as_bytes());
        let out = drain(&mut ep);
        assert!(out.contains(&Event::Stopped {
            reason: StopReason::AnswerTooLarge,
            failure: None,
        }));
        assert_eq!(out.last(), Some(&Event::Idle));
    }

    /// Rule E-3: a limit of 0, which no answer passes, is refused when the endpoint is made and
    /// when a snapshot holding one is restored, naming the limit.
    #[test]
    fn a_zero_limit_is_refused_by_name() {
        for (field, set) in [
            (
                "max_bytes",
                (|l: &mut Limits| l.max_bytes = 0) as fn(&mut Limits),
            ),
            ("max_depth", |l| l.max_depth = 0),
            ("max_string_bytes", |l| l.max_string_bytes = 0),
        ] {
            let mut c = config();
            set(&mut c.limits);
            let e = CallEndpoint::watch(Model::Task2026, "t1", c).unwrap_err();
            assert_eq!(e.code(), "invalid_config");
            assert_eq!(
                e.to_string(),
                alloc::format!("invalid configuration: limits.{field}: must be at least 1")
            );
        }
        let text = CallEndpoint::watch(Model::Task2026, "t1", config())
            .unwrap()
            .snapshot()
            .unwrap();
        let zero = text.replace("\"max_depth\":64", "\"max_depth\":0");
        assert_ne!(zero, text);
        let e = CallEndpoint::restore(&zero, 5).unwrap_err();
        assert_eq!(e.code(), "snapshot_invalid");
        assert!(
            e.to_string().contains("max_depth: must be at least 1"),
            "{e}"
        );
    }

    /// Rule E-3: under the default limits a result that fits a message is read whatever the
    /// length of its strings: a 1.5 MB base64 image settles the call with it.
    #[test]
    fn a_long_image_string_within_the_message_limit_is_read() {
        let mut ep = CallEndpoint::watch(Model::Task2026, "t1", config()).unwrap();
        let _ = drain(&mut ep);
        let data = "A".repeat(1_500_000);
        let result = format!(
            r#","result":{{"content":[{{"type":"image","mimeType":"image/png","data":"{data}"}}]}}"#
        );
        ep.handle_message(1, answer(1, &task("completed", &result)).as_bytes());
        let out = drain(&mut ep);
        let settled = out.iter().find_map(|e| match e {
            Event::Settled {
                outcome, result, ..
            } => Some((*outcome, result.clone())),
            _ => None,
        });
        let (outcome, result) = settled.expect("settled");
        assert_eq!(outcome, Outcome::Succeeded);
        assert_eq!(
            result.unwrap()["content"][0]["data"].as_str().map(str::len),
            Some(1_500_000)
        );
    }

    /// Rules R-7: a prompt released and not answered is listed after a restore (the person who
    /// saw it is gone with the old host), not released again; answering it sends the update,
    /// and the list empties. An MRTR prompt of the call itself is listed the same way.
    #[test]
    fn open_prompts_survive_a_restore_and_leave_when_answered() {
        let mut ep =
            CallEndpoint::call_tool(Model::Task2026, "confirm", json!({}), None, config()).unwrap();
        let _ = drain(&mut ep);
        ep.handle_message(1, answer(1, &task("working", "")).as_bytes());
        let Some(Event::WakeAt { at }) = drain(&mut ep).pop() else {
            panic!("no wake")
        };
        ep.handle_timeout(at);
        let poll = sent(&drain(&mut ep))[0].0;
        let asks =
            r#","inputRequests":{"k1":{"method":"elicitation/create","params":{"message":"go?"}}}"#;
        ep.handle_message(
            at + 1,
            answer(poll, &task("input_required", asks)).as_bytes(),
        );
        let out = drain(&mut ep);
        assert!(out
            .iter()
            .any(|e| matches!(e, Event::AskUser { key, .. } if key == "k1")));
        let mut back = CallEndpoint::restore(&ep.snapshot().unwrap(), 10).unwrap();
        assert_eq!(
            back.tool_name(),
            Some("confirm"),
            "the tool is in the snapshot"
        );
        let again = drain(&mut back);
        assert!(
            !again.iter().any(|e| matches!(e, Event::AskUser { .. })),
            "not released again: {again:?}"
        );
        let open: Vec<_> = back.open_prompts().collect();
        assert_eq!(open.len(), 1);
        assert_eq!(
            (
                open[0].0,
                open[0].1["params"]["message"].as_str(),
                open[0].2
            ),
            ("k1", Some("go?"), false)
        );
        back.answer_input(11, "k1", json!({"action": "decline"}))
            .unwrap();
        let out = drain(&mut back);
        assert!(
            sent(&out).iter().any(|s| s.1["method"] == "tasks/update"),
            "{out:?}"
        );
        assert_eq!(back.open_prompts().count(), 0);

        let mut ep =
            CallEndpoint::call_tool(Model::Task2026, "confirm", json!({}), None, config()).unwrap();
        let _ = drain(&mut ep);
        let ir = r#"{"resultType":"input_required","requestState":"s","inputRequests":{"k2":{"method":"elicitation/create","params":{}}}}"#;
        ep.handle_message(1, answer(1, ir).as_bytes());
        let _ = drain(&mut ep);
        let back = CallEndpoint::restore(&ep.snapshot().unwrap(), 10).unwrap();
        assert_eq!(
            back.open_prompts().map(|p| (p.0, p.2)).collect::<Vec<_>>(),
            [("k2", true)]
        );
    }

    /// Rule I-10: a 2025 task asks for input with the server's own `elicitation/create` on
    /// its `tasks/result` stream. It is asked once (a replayed stream repeats it), survives a
    /// restore, and its answer is a JSON-RPC response to the server's id, given again when the
    /// request comes again after it; a request of another task, of none, or after a press is
    /// not the call's.
    #[test]
    fn a_2025_task_asks_on_its_result_stream_and_is_answered_by_reply() {
        let mut ep =
            CallEndpoint::call_tool(Model::Task2025, "confirm", json!({}), None, config()).unwrap();
        let _ = drain(&mut ep);
        let task25 = |status: &str| {
            format!(
                r#"{{"taskId":"t1","status":"{status}","ttl":null,"createdAt":"2026-11-29T15:00:00Z","lastUpdatedAt":"2026-11-29T15:00:00Z"}}"#
            )
        };
        ep.handle_message(
            1,
            answer(1, &format!(r#"{{"task":{}}}"#, task25("working"))).as_bytes(),
        );
        // I-8: a poll that finds `input_required` opens `tasks/result`; its id is returned.
        let open_stream = |ep: &mut CallEndpoint| -> (u64, u64) {
            let Some(Event::WakeAt { at }) = drain(ep).pop() else {
                panic!("no wake")
            };
            ep.handle_timeout(at);
            let poll = sent(&drain(ep))[0].0;
            ep.handle_message(at, answer(poll, &task25("input_required")).as_bytes());
            let fetch = sent(&drain(ep))
                .into_iter()
                .find(|s| s.1["method"] == "tasks/result")
                .expect("tasks/result is opened");
            (fetch.0, at)
        };
        let _ = open_stream(&mut ep);
        let elicit = |id: &str, task: &str| {
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"elicitation/create","params":{{"message":"Delete a.txt?","requestedSchema":{{"type":"object"}},"_meta":{{"io.modelcontextprotocol/related-task":{{"taskId":"{task}"}}}}}}}}"#
            )
        };
        let asks = |out: &[Event]| -> Vec<String> {
            out.iter()
                .filter_map(|e| match e {
                    Event::AskUser { key, .. } => Some(key.clone()),
                    _ => None,
                })
                .collect()
        };
        // Another task's request, and one naming no task: the host's own, not asked.
        ep.handle_message(2, elicit("7", "other").as_bytes());
        ep.handle_message(
            2,
            br#"{"jsonrpc":"2.0","id":8,"method":"elicitation/create","params":{"message":"hi"}}"#,
        );
        assert_eq!(asks(&drain(&mut ep)), Vec::<String>::new());
        ep.handle_message(3, elicit("\"e-1\"", "t1").as_bytes());
        let out = drain(&mut ep);
        assert_eq!(asks(&out), ["elicitation/create#\"e-1\""]);
        let Some(Event::AskUser { request, call, .. }) =
            out.iter().find(|e| matches!(e, Event::AskUser { .. }))
        else {
            unreachable!()
        };
        assert_eq!(
            (
                request["method"].as_str(),
                request["params"]["message"].as_str(),
                *call
            ),
            (Some("elicitation/create"), Some("Delete a.txt?"), false)
        );
        // A replayed stream repeats the request: asked once.
        ep.handle_message(4, elicit("\"e-1\"", "t1").as_bytes());
        assert_eq!(asks(&drain(&mut ep)), Vec::<String>::new());

        let mut back = CallEndpoint::restore(&ep.snapshot().unwrap(), 5).unwrap();
        // R-6: the stream did not survive the restart; it is opened again after a poll.
        let (fetch, at) = open_stream(&mut back);
        // R-7: its reply went with the old connection; it waits for its request, then comes
        // once (a server that asks anew would ask under a new key).
        assert_eq!(back.open_prompts().count(), 0);
        back.handle_message(at + 5, elicit("\"e-1\"", "t1").as_bytes());
        assert_eq!(asks(&drain(&mut back)), ["elicitation/create#\"e-1\""]);
        assert_eq!(
            back.open_prompts().map(|p| p.0).collect::<Vec<_>>(),
            ["elicitation/create#\"e-1\""]
        );
        back.handle_message(at + 5, elicit("\"e-1\"", "t1").as_bytes());
        assert_eq!(asks(&drain(&mut back)), Vec::<String>::new(), "once");
        let key = "elicitation/create#\"e-1\"";
        assert_eq!(
            back.answer_input(at + 6, key, json!("yes"))
                .unwrap_err()
                .code(),
            "invalid_input",
            "I-9: an answer is an object"
        );
        let yes = json!({"action": "accept", "content": {"confirm": true}});
        back.answer_input(at + 6, key, yes.clone()).unwrap();
        let out = drain(&mut back);
        let replies: Vec<_> = out
            .iter()
            .filter_map(|e| match e {
                Event::Transmit(Transmit::Reply { text, headers }) => Some((
                    serde_json::from_str::<Value>(text).unwrap(),
                    headers.clone(),
                )),
                _ => None,
            })
            .collect();
        assert_eq!(replies.len(), 1, "{out:?}");
        assert_eq!(
            replies[0].0,
            json!({"jsonrpc": "2.0", "id": "e-1", "result": yes})
        );
        assert!(replies[0]
            .1
            .contains(&("MCP-Protocol-Version".into(), "2025-11-25".into())));
        assert!(sent(&out).is_empty(), "nothing else is sent: {out:?}");
        assert_eq!(back.open_prompts().count(), 0);
        assert_eq!(
            back.answer_input(at + 7, key, yes.clone())
                .unwrap_err()
                .to_string(),
            "invalid input: key: this input key was already answered; a key is answered once"
        );
        // The request again after its answer (the reply was lost): the same answer again, no
        // prompt, also after a restart.
        let mut restarted = CallEndpoint::restore(&back.snapshot().unwrap(), at + 7).unwrap();
        for ep in [&mut back, &mut restarted] {
            ep.handle_message(at + 7, elicit("\"e-1\"", "t1").as_bytes());
            let out = drain(ep);
            assert_eq!(asks(&out), Vec::<String>::new());
            let again: Vec<_> = out
                .iter()
                .filter_map(|e| match e {
                    Event::Transmit(Transmit::Reply { text, .. }) => {
                        Some(serde_json::from_str::<Value>(text).unwrap())
                    }
                    _ => None,
                })
                .collect();
            assert_eq!(again, [replies[0].0.clone()], "{out:?}");
        }

        // I-6: after a press, no new prompt, and an open one is moot.
        back.handle_message(at + 8, elicit("9", "t1").as_bytes());
        let _ = drain(&mut back);
        back.cancel_pressed(at + 9).unwrap();
        back.handle_message(at + 10, elicit("10", "t1").as_bytes());
        assert_eq!(asks(&drain(&mut back)), Vec::<String>::new());
        assert!(back
            .answer_input(at + 11, "elicitation/create#9", yes)
            .is_err());

        // The stream's own answer still settles the call.
        let done =
            r#"{"content":[],"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t1"}}}"#;
        back.handle_message(at + 12, answer(fetch, done).as_bytes());
        assert!(drain(&mut back)
            .iter()
            .any(|e| matches!(e, Event::Settled { .. })));
    }

    /// Rules E-61: each new `statusMessage` is a progress event, on the fast `tasks/get` path
    /// and the general one alike; the same words again are not; the answer that settles the
    /// call gives its words before the outcome; a restore remembers the last words given.
    #[test]
    fn status_messages_are_progress_once_each() {
        let progress = |out: &[Event]| -> Vec<String> {
            out.iter()
                .filter_map(|e| match e {
                    Event::Progress { message } => Some(message.clone()),
                    _ => None,
                })
                .collect()
        };
        let mut ep =
            CallEndpoint::call_tool(Model::Task2026, "render", json!({}), None, config()).unwrap();
        let _ = drain(&mut ep);
        ep.handle_message(
            1,
            answer(
                1,
                &task("working", r#","statusMessage":"queued for a GPU""#),
            )
            .as_bytes(),
        );
        let mut out = drain(&mut ep);
        assert_eq!(progress(&out), ["queued for a GPU"]);
        let poll = |ep: &mut CallEndpoint, out: &[Event], status: &str, more: &str| {
            let Some(Event::WakeAt { at }) = out.last() else {
                panic!("{out:?}")
            };
            ep.handle_timeout(*at);
            let id = sent(&drain(ep))[0].0;
            ep.handle_message(at + 1, answer(id, &task(status, more)).as_bytes());
            drain(ep)
        };
        out = poll(
            &mut ep,
            &out,
            "working",
            r#","statusMessage":"queued for a GPU""#,
        );
        assert!(progress(&out).is_empty(), "the same words again: {out:?}");
        out = poll(
            &mut ep,
            &out,
            "working",
            r#","statusMessage":"frame 40 of 90""#,
        );
        assert_eq!(progress(&out), ["frame 40 of 90"]);
        // The general path (an input request keeps the fast one out).
        let asks = r#","statusMessage":"waiting for you","inputRequests":{"k":{"method":"elicitation/create","params":{}}}"#;
        out = poll(&mut ep, &out, "input_required", asks);
        assert_eq!(progress(&out), ["waiting for you"]);
        let mut back = CallEndpoint::restore(&ep.snapshot().unwrap(), 100).unwrap();
        let again = drain(&mut back);
        assert!(progress(&again).is_empty());
        back.answer_input(101, "k", json!({"action": "accept"}))
            .unwrap();
        let _ = drain(&mut back);
        // Settled: its last words are not progress.
        back.handle_timeout(1_000);
        let sent_now = sent(&drain(&mut back));
        let id = sent_now
            .iter()
            .find(|s| s.1["method"] == "tasks/get")
            .unwrap()
            .0;
        back.handle_message(
            1_001,
            answer(
                id,
                &task(
                    "completed",
                    r#","statusMessage":"done","result":{"content":[]}"#,
                ),
            )
            .as_bytes(),
        );
        let out = drain(&mut back);
        assert_eq!(progress(&out), ["done"], "{out:?}");
        let at = |want: fn(&Event) -> bool| out.iter().position(want);
        assert!(
            at(|e| matches!(e, Event::Progress { .. }))
                < at(|e| matches!(e, Event::Settled { .. })),
            "the last words before the outcome: {out:?}"
        );
    }

    /// Rule P-16: a watch started again after a stop keeps the floors of the one before it: the
    /// server's interval after the last poll, and a `Retry-After`, whichever ends later; the
    /// stated interval stays the floor of the polls after. The status last seen stands, so a
    /// cancel can be pressed before that poll.
    #[test]
    fn watching_again_keeps_the_floors_of_the_earlier_watch() {
        let wake = |out: &[Event]| match out.last() {
            Some(Event::WakeAt { at }) => *at,
            other => panic!("no wake-up: {other:?}"),
        };
        let mut ep = CallEndpoint::watch(Model::Task2026, "t1", config()).unwrap();
        let poll = sent(&drain(&mut ep))[0].0;
        let working = r#"{"resultType":"complete","taskId":"t1","status":"working","createdAt":"2026-11-29T15:07:54Z","lastUpdatedAt":"2026-11-29T15:07:54Z","ttlMs":null,"pollIntervalMs":5000}"#;
        ep.handle_message(100, answer(poll, working).as_bytes());
        assert_eq!(wake(&drain(&mut ep)), 5_100);
        ep.stop_watching(200);
        let _ = drain(&mut ep);
        // Resumed from its snapshot at once: no poll before the server's 5 s after the last one.
        let stopped = CallEndpoint::restore(&ep.snapshot().unwrap(), 300).unwrap();
        let mut again = stopped.watch_again(config()).unwrap();
        let out = drain(&mut again);
        assert!(sent(&out).is_empty(), "{out:?}");
        assert_eq!(wake(&out), 5_100);
        // The status last seen stands until then, and a cancel can be pressed at once.
        assert_eq!(
            out[..2],
            [
                Event::Status {
                    status: Status::Working
                },
                Event::Button {
                    state: ButtonState::Available
                }
            ]
        );
        let mut pressed = again.clone();
        pressed.cancel_pressed(400).unwrap();
        let out = drain(&mut pressed);
        assert_eq!(sent(&out)[0].1["method"], "tasks/cancel", "{out:?}");
        // Not after a cancel was asked: that answer decides the button.
        pressed.stop_watching(500);
        let _ = drain(&mut pressed);
        let out = drain(&mut pressed.watch_again(config()).unwrap());
        assert!(
            !out.iter().any(|e| matches!(e, Event::Status { .. })),
            "{out:?}"
        );
        again.handle_timeout(5_100);
        let poll = sent(&drain(&mut again))[0].0;
        // The interval is still the floor before an answer restates it: a failed poll backs off
        // from the 1 s default no sooner than 5 s.
        again.handle_transport_failure(5_200, poll);
        assert!(wake(&drain(&mut again)) >= 10_200);
        // A Retry-After further away than the floor wins.
        again.handle_timeout(20_000);
        let poll = sent(&drain(&mut again))[0].0;
        let busy = HttpAnswer {
            status: 429,
            retry_after_ms: Some(60_000),
            body: b"slow down",
        };
        again.handle_http(20_100, poll, busy);
        let _ = drain(&mut again);
        again.stop_watching(20_200);
        let _ = drain(&mut again);
        let mut third = again.watch_again(config()).unwrap();
        assert_eq!(wake(&drain(&mut third)), 80_100);
        // A watch that never polled knew no floor: its successor polls at once.
        let mut fresh = CallEndpoint::watch(Model::Task2026, "t2", config()).unwrap();
        let _ = drain(&mut fresh);
        fresh.stop_watching(1);
        let _ = drain(&mut fresh);
        let out = drain(&mut fresh.watch_again(config()).unwrap());
        assert_eq!(sent(&out).len(), 1, "{out:?}");
    }

    /// Rule E-70: a call stopped in an MRTR round, before any task, is watched again from that
    /// round: the open prompt asked again, then the continuation with the same tool and
    /// arguments and the round's state; a round that asked nothing is continued at once. A
    /// stop while the continuation is out waits for its answer (E-62), which names the task.
    #[test]
    fn a_call_stopped_in_an_mrtr_round_goes_on_from_it() {
        let start = || {
            let mut ep =
                CallEndpoint::call_tool(Model::Task2026, "render", json!({"n": 1}), None, config())
                    .unwrap();
            let _ = drain(&mut ep);
            ep
        };
        let asks = |out: &[Event]| {
            out.iter()
                .filter(|e| matches!(e, Event::AskUser { call: true, .. }))
                .count()
        };
        let ir = r#"{"resultType":"input_required","requestState":"s1","inputRequests":{"k1":{"method":"elicitation/create","params":{}}}}"#;
        let mut ep = start();
        ep.handle_message(1, answer(1, ir).as_bytes());
        assert_eq!(asks(&drain(&mut ep)), 1);
        ep.stop_watching(2);
        let out = drain(&mut ep);
        assert!(
            out.iter().any(|e| matches!(e, Event::Stopped { .. })),
            "{out:?}"
        );
        let stopped = CallEndpoint::restore(&ep.snapshot().unwrap(), 3).unwrap();
        let mut again = stopped.watch_again(config()).unwrap();
        assert_eq!(asks(&drain(&mut again)), 1, "asked again");
        again
            .answer_input(4, "k1", json!({"action": "accept"}))
            .unwrap();
        let s = sent(&drain(&mut again));
        let p = &s[0].1["params"];
        assert_eq!(
            (
                p["name"].as_str(),
                &p["arguments"],
                p["requestState"].as_str()
            ),
            (Some("render"), &json!({"n": 1}), Some("s1"))
        );
        assert_eq!(p["inputResponses"]["k1"]["action"], "accept");

        // Still waiting when stopped: continued at once when watched again.
        let mut ep = start();
        let waiting = r#"{"resultType":"input_required","requestState":"w1"}"#;
        ep.handle_message(1, answer(1, waiting).as_bytes());
        let _ = drain(&mut ep);
        ep.stop_watching(2);
        let _ = drain(&mut ep);
        let mut again = ep.watch_again(config()).unwrap();
        let out = drain(&mut again);
        assert_eq!(out.last(), Some(&Event::WakeAt { at: 0 }), "{out:?}");
        again.handle_timeout(3);
        let s = sent(&drain(&mut again));
        assert_eq!(s[0].1["params"]["requestState"], "w1");
        // The continuation out: a stop waits for its answer, which names the task.
        let id = s[0].0;
        again.stop_watching(4);
        assert!(!drain(&mut again)
            .iter()
            .any(|e| matches!(e, Event::Stopped { .. })));
        again.handle_message(5, answer(id, &task("working", "")).as_bytes());
        let out = drain(&mut again);
        assert_eq!(again.tracker().handle(), Some("t1"));
        assert!(
            out.iter().any(|e| matches!(e, Event::Stopped { .. })),
            "{out:?}"
        );
        // A call stopped with nothing to go on with is not watched again.
        let mut ep = start();
        ep.stop_watching(1);
        ep.handle_transport_failure(2, 1);
        let _ = drain(&mut ep);
        assert!(ep.watch_again(config()).is_err());
    }

    /// Rules E-8.

    #[test]
    fn mrtr_continuation_carries_request_state_then_result() {
        let mut ep = CallEndpoint::call_tool(
            Model::Task2026,
            "confirm",
            json!({"f": "x"}),
            None,
            config(),
        )
        .unwrap();
        let _ = drain(&mut ep);
        let ir = r#"{"resultType":"input_required","requestState":"opaque-1","inputRequests":{"k1":{"method":"elicitation/create","params":{}}}}"#;
        ep.handle_message(1, answer(1, ir).as_bytes());
        let out = drain(&mut ep);
        assert!(matches!(&out[0], Event::AskUser { key, call: true, .. } if key == "k1"));
        ep.answer_input(2, "k1", json!({"action": "accept"}))
            .unwrap();
        let out = drain(&mut ep);
        let s = sent(&out);
        assert_eq!(s[0].1["method"], "tools/call");
        assert_eq!(s[0].1["params"]["name"], "confirm");
        assert_eq!(s[0].1["params"]["arguments"]["f"], "x");
        assert_eq!(s[0].1["params"]["requestState"], "opaque-1");
        assert_eq!(s[0].1["params"]["inputResponses"]["k1"]["action"], "accept");
        let id = s[0].0;
        ep.handle_message(
            3,
            answer(id, r#"{"content":[],"resultType":"complete"}"#).as_bytes(),
        );
        let out = drain(&mut ep);
        assert!(out.iter().any(|e| matches!(
            e,
            Event::Settled {
                outcome: Outcome::Succeeded,
                ..
            }
        )));
    }

    /// Rules E-64, O-9: a listed tool that may not run as a task is called plainly on the 2025
    /// wire, and its result settles the call; one that may asks for a task; 2026 always does.
    #[test]
    fn a_listed_tool_runs_as_a_task_only_where_it_may() {
        let call = |model, tool: Value, ttl| {
            let mut ep = CallEndpoint::call_listed_tool(model, &tool, json!({}), ttl, config())?;
            let out = drain(&mut ep);
            let (id, msg) = sent(&out).remove(0);
            Ok::<_, Error>((ep, id, msg))
        };
        for tool in [
            json!({"name": "echo"}),
            json!({"name": "echo", "execution": {"taskSupport": "forbidden"}}),
            json!({"name": "echo", "execution": {"taskSupport": "sometimes"}}),
        ] {
            let (mut ep, id, msg) = call(Model::Task2025, tool.clone(), None).unwrap();
            assert_eq!(msg["params"]["name"], "echo", "{tool}");
            assert!(msg["params"].get("task").is_none(), "{tool}: {msg}");
            let answer = format!(
                r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[{{"type":"text","text":"hi"}}]}}}}"#
            );
            ep.handle_answer(5, id, answer.as_bytes());
            let out = drain(&mut ep);
            assert!(
                out.iter().any(|e| matches!(
                    e,
                    Event::Settled {
                        outcome: Outcome::Succeeded,
                        ..
                    }
                )),
                "{tool}: {out:?}"
            );
            // A TTL is a task's; a plain call has none to ask, and says so.
            let e = call(Model::Task2025, tool.clone(), Some(60_000))
                .err()
                .unwrap();
            assert_eq!(e.code(), "invalid_input", "{tool}");
        }
        for support in ["optional", "required"] {
            let tool = json!({"name": "render", "execution": {"taskSupport": support}});
            let (_, _, msg) = call(Model::Task2025, tool, Some(60_000)).unwrap();
            assert_eq!(msg["params"]["task"], json!({"ttl": 60_000}), "{support}");
        }
        // 2026 has no per-tool flag: the server decides, and the call is call_tool's.
        let (_, _, msg) = call(Model::Task2026, json!({"name": "echo"}), None).unwrap();
        let mut by_name =
            CallEndpoint::call_tool(Model::Task2026, "echo", json!({}), None, config()).unwrap();
        assert_eq!(sent(&drain(&mut by_name))[0].1, msg);
        for bad in [
            json!({}),
            json!({"name": ""}),
            json!({"name": 5}),
            json!("echo"),
        ] {
            let e = call(Model::Task2025, bad.clone(), None).err().unwrap();
            assert_eq!(e.code(), "invalid_input", "{bad}");
        }
    }

    /// Rules E-5.

    #[test]
    fn resume_with_requests_in_flight() {
        // A poll in flight: re-armed at the floor, never answered twice.
        let mut ep = CallEndpoint::watch(Model::Task2026, "t1", config()).unwrap();
        let _ = drain(&mut ep);
        let snap = ep.snapshot().unwrap();
        let mut back = CallEndpoint::restore(&snap, 100).unwrap();
        assert_eq!(drain(&mut back), vec![Event::WakeAt { at: 1100 }]);
        back.handle_timeout(1100);
        let s = sent(&drain(&mut back));
        assert_eq!((s[0].0, s[0].1["method"].as_str()), (2, Some("tasks/get")));
        // A tools/call in flight is the call unanswered: never sent again.
        let ep = CallEndpoint::call_tool(Model::Task2026, "x", json!({}), None, config()).unwrap();
        let mut back = CallEndpoint::restore(&ep.snapshot().unwrap(), 5).unwrap();
        let out = drain(&mut back);
        assert!(sent(&out).is_empty());
        assert!(out.contains(&Event::Stopped {
            reason: StopReason::CreateUnanswered,
            failure: None,
        }));
    }

    /// Rule E-5: a snapshot whose tracker has a poll and a cancel out but whose pending list
    /// lost them (edited by hand) does not leave the call waiting forever: both count as lost
    /// in transport, the button reopens and the poll is asked again at the floor.
    #[test]
    fn restore_catches_requests_no_pending_entry_carries() {
        let mut ep = CallEndpoint::watch(Model::Job, "job_1", config()).unwrap();
        let first = http_ref(&drain(&mut ep));
        ep.handle_http(10, first, http(200, br#"{"id":"job_1","status":"queued"}"#));
        let at = wake(&drain(&mut ep));
        ep.handle_timeout(at);
        let _ = drain(&mut ep); // the poll is out
        ep.cancel_pressed(at + 1).unwrap();
        let _ = drain(&mut ep); // and the cancel
        let mut snap: Value = serde_json::from_str(&ep.snapshot().unwrap()).unwrap();
        let state = snap
            .as_object_mut()
            .and_then(|o| o.values_mut().find(|v| v.get("pending").is_some()))
            .expect("a pending list in the snapshot");
        state["pending"] = json!([]);
        let mut back = CallEndpoint::restore(&snap.to_string(), at + 5).unwrap();
        let out = drain(&mut back);
        assert!(
            out.contains(&Event::Button {
                state: ButtonState::Available
            }),
            "{out:?}"
        );
        let next = wake(&out);
        back.handle_timeout(next);
        let out = drain(&mut back);
        assert!(
            out.iter().any(
                |e| matches!(e, Event::Transmit(Transmit::Http { method, .. }) if method == "GET")
            ),
            "{out:?}"
        );
    }

    /// Rules E-6, E-7.

    #[test]
    fn job_cancel_is_http_with_idempotency_key() {
        let mut ep = CallEndpoint::watch(Model::Job, "job_1", config()).unwrap();
        let out = drain(&mut ep);
        let Event::Transmit(Transmit::Http {
            request_ref,
            method,
            path,
            ..
        }) = &out[0]
        else {
            panic!("{out:?}")
        };
        assert_eq!((method.as_str(), path.as_str()), ("GET", "/jobs/job_1"));
        let body = br#"{"id":"job_1","status":"queued"}"#;
        ep.handle_http(
            1,
            *request_ref,
            HttpAnswer {
                status: 200,
                retry_after_ms: None,
                body,
            },
        );
        let _ = drain(&mut ep);
        ep.cancel_pressed(2).unwrap();
        let out = drain(&mut ep);
        let t = out.iter().find_map(|e| match e {
            Event::Transmit(Transmit::Http { headers, body, .. }) => Some((headers, body)),
            _ => None,
        });
        let (headers, body) = t.unwrap();
        assert!(headers.contains(&("Idempotency-Key".into(), "job_1:cancel".into())));
        assert!(body.as_deref().unwrap().contains("job_1:cancel"));
    }

    /// The `request_ref` of the HTTP request `events` send.
    fn http_ref(events: &[Event]) -> u64 {
        events
            .iter()
            .find_map(|e| match e {
                Event::Transmit(Transmit::Http { request_ref, .. }) => Some(*request_ref),
                _ => None,
            })
            .unwrap_or_else(|| panic!("no HTTP request in {events:?}"))
    }

    /// An HTTP answer as it arrived, without a `Retry-After` read by the host.
    fn http(status: u16, body: &[u8]) -> HttpAnswer<'_> {
        HttpAnswer {
            status,
            retry_after_ms: None,
            body,
        }
    }

    fn wake(events: &[Event]) -> u64 {
        match events.last() {
            Some(Event::WakeAt { at }) => *at,
            other => panic!("expected a wake_at last, got {other:?}"),
        }
    }

    /// Rules E-63.

    #[test]
    fn failed_polls_are_said_and_so_is_the_first_answer_after() {
        let mut ep = CallEndpoint::watch(Model::Job, "job_1", config()).unwrap();
        let first = http_ref(&drain(&mut ep));
        // No answer: said, and polled again later.
        ep.handle_transport_failure(10, first);
        let out = drain(&mut ep);
        assert_eq!(
            out[0],
            Event::RequestFailed {
                request: RequestKind::Get,
                failure: Failure::Transport
            }
        );
        let at = wake(&out);
        ep.handle_timeout(at);
        let second = http_ref(&drain(&mut ep));
        // A 503 with the job API's envelope: said with its code.
        let body = br#"{"error":{"code":"service_unavailable","message":"down"}}"#;
        let answer = http(503, body);
        ep.handle_http(at + 5, second, answer);
        let out = drain(&mut ep);
        assert_eq!(
            out[0],
            Event::RequestFailed {
                request: RequestKind::Get,
                failure: Failure::Http {
                    status: 503,
                    code: Some("service_unavailable".into()),
                    retry_after_ms: None
                }
            }
        );
        // Still failing across a restart; the next answer is said as the recovery, before
        // what it tells.
        let mut ep = CallEndpoint::restore(&ep.snapshot().unwrap(), at + 6).unwrap();
        let at = wake(&drain(&mut ep));
        ep.handle_timeout(at);
        let third = http_ref(&drain(&mut ep));
        let answer = http(200, br#"{"id":"job_1","status":"processing"}"#);
        ep.handle_http(at + 5, third, answer);
        let out = drain(&mut ep);
        assert_eq!(out[0], Event::Recovered);
        assert!(out.contains(&Event::Status {
            status: Status::Processing
        }));
        // Said once: the next answer is not a recovery.
        let at = wake(&out);
        ep.handle_timeout(at);
        let fourth = http_ref(&drain(&mut ep));
        let answer = http(200, br#"{"id":"job_1","status":"processing"}"#);
        ep.handle_http(at + 5, fourth, answer);
        assert!(!drain(&mut ep).contains(&Event::Recovered));
    }

    /// Rules E-63: a plain 2026 `tasks/get` answer, read by the fast reader, is a recovery too.
    #[test]
    fn the_first_plain_task_answer_after_failures_is_the_recovery() {
        let (mut ep, id) = polling();
        ep.handle_transport_failure(10, id);
        let at = wake(&drain(&mut ep));
        ep.handle_timeout(at);
        let id = sent(&drain(&mut ep))[0].0;
        let working = answer(
            id,
            &task("working", r#","statusMessage":"2 of 5""#).replace("\"task\"", "\"complete\""),
        );
        ep.handle_answer(at + 5, id, working.as_bytes());
        let out = drain(&mut ep);
        assert_eq!(out[0], Event::Recovered, "{out:?}");
        assert!(out.contains(&Event::Progress {
            message: "2 of 5".into()
        }));
        // Said once.
        let at = wake(&out);
        ep.handle_timeout(at);
        let id = sent(&drain(&mut ep))[0].0;
        let working = answer(id, &task("working", "").replace("\"task\"", "\"complete\""));
        ep.handle_answer(at + 5, id, working.as_bytes());
        assert!(!drain(&mut ep).contains(&Event::Recovered));
    }

    /// Rules E-63, O-6: a failure that ends the watch is not said as one to retry.
    #[test]
    fn a_failure_that_settles_the_call_is_not_a_request_failed() {
        let mut ep = CallEndpoint::watch(Model::Job, "job_1", config()).unwrap();
        let first = http_ref(&drain(&mut ep));
        let body = br#"{"error":{"code":"not_found","message":"no such job"}}"#;
        let answer = http(404, body);
        ep.handle_http(10, first, answer);
        let out = drain(&mut ep);
        assert!(
            !out.iter().any(|e| matches!(e, Event::RequestFailed { .. })),
            "{out:?}"
        );
        assert!(out.iter().any(|e| matches!(
            e,
            Event::Settled {
                outcome: Outcome::Lost,
                ..
            }
        )));
    }

    /// Rules O-6, E-63: a 404 that is not the job API's `not_found` (a proxy's HTML page) is a
    /// failed poll in both HTTP dialects: said, polled again, and the job is found after it.
    #[test]
    fn a_proxy_404_page_is_a_failed_poll_not_a_lost_job() {
        for dialect in JobDialect::ALL {
            let mut c = config();
            c.job_dialect = dialect;
            let mut ep = CallEndpoint::watch(Model::Job, "job_1", c).unwrap();
            let first = http_ref(&drain(&mut ep));
            let page = b"<html><body><h1>404 Not Found</h1>nginx</body></html>";
            ep.handle_http(10, first, http(404, page));
            let out = drain(&mut ep);
            let said = Event::RequestFailed {
                request: RequestKind::Get,
                failure: Failure::Http {
                    status: 404,
                    code: None,
                    retry_after_ms: None,
                },
            };
            assert_eq!(out[0], said, "{dialect:?}");
            assert!(
                !out.iter().any(|e| matches!(e, Event::Settled { .. })),
                "{dialect:?}: {out:?}"
            );
            let at = wake(&out);
            ep.handle_timeout(at);
            let second = http_ref(&drain(&mut ep));
            let body: &[u8] = match dialect {
                JobDialect::McpTools => br#"{"id":"job_1","status":"processing"}"#,
                JobDialect::OpenApi => br#"{"data":{"id":"job_1","sume_status":"processing"}}"#,
            };
            ep.handle_http(at + 5, second, http(200, body));
            let out = drain(&mut ep);
            assert_eq!(out[0], Event::Recovered, "{dialect:?}");
            assert!(out.contains(&Event::Status {
                status: Status::Processing
            }));
        }
    }

    /// Rules E-7, P-4: a `Retry-After` the host did not read is read from the answer's headers,
    /// in every dialect, and is a floor for the next poll.
    #[test]
    fn retry_after_is_read_from_the_headers() {
        let mut ep = CallEndpoint::watch(Model::Job, "job_1", config()).unwrap();
        let first = http_ref(&drain(&mut ep));
        let body = br#"{"error":{"code":"rate_limit_exceeded","message":"slow down"}}"#;
        let answer = http(429, body);
        let headers = [("Retry-After".to_string(), "7".to_string())];
        ep.handle_http_headers(100, first, answer, &headers);
        let out = drain(&mut ep);
        assert!(wake(&out) >= 7_100, "{out:?}");
    }
}
