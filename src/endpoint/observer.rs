//! The endpoint in the observer role: it reads both directions of a recorded exchange and reports
//! every rule either party broke, with the same rules the client and the server run (h11's rule
//! 2: the rules do not know which role they are played in).
//!
//! * [`McpObserver`] reads an MCP transcript: JSON-RPC messages in both directions, with their
//!   time and, over Streamable HTTP, the request headers. Server answers are read through the
//!   client's mapping ([`super::codec`]), client requests are judged by the server's gate
//!   ([`crate::server::gate`]), and the lifecycle, cancel, outcome, poll-floor and input-key rules
//!   come from their core modules.
//! * [`JobObserver`] reads a job log: HTTP requests and answers of a Sume-style job API.
//!
//! Both are sans-io: feed them with `handle_*`, call `handle_end` once the transcript is over,
//! and drain [`Event`]s with `poll_event` after each call (or at the end).
//!
//! Rules, written once:
//!
//! * **E-40 Pairing.** A response answers the request with the same JSON-RPC id sent the other
//!   way (each direction has its own id space). A job log answers its requests in order: an
//!   answer belongs to the oldest request not yet answered; HTTP status 0 is no answer at all.
//! * **E-41 Probes.** A client request that breaks a gate rule (E-20..E-25) and that the server
//!   rejects with one of the codes the gate gives for it is a probe handled correctly: a note.
//!   Answered otherwise, or never, the gate rule's violation counts, at the request.
//! * **E-42 One reading of answers.** Server answers are read with [`super::codec::read_answer`]
//!   and [`super::codec::read_notification`]; every shape violation the client would report is
//!   reported, and nothing else is derived from the shape. An answer the codec cannot read at all
//!   is `unknown_status` (a status the model does not have) or `missing_field`.
//! * **E-43 Statuses.** Every observed status (create, poll, cancel answer, notification, list)
//!   goes through [`crate::lifecycle::seed`] and [`crate::lifecycle::observe`]: `bad_seed`,
//!   `illegal_transition` (the status held stays, since no server moves back), `terminal_conflict`
//!   (the first terminal status stands).
//! * **E-44 Poll floor.** A poll (`tasks/get`, a job `GET`) sent sooner after the previous answer
//!   than the server's interval (`pollIntervalMs` / `pollInterval`), or before a job answer's
//!   `Retry-After` ran out, is `poll_too_fast` (SHOULD). One confirming poll is exempt after the
//!   creating answer (P-14: the server creates durably so that an immediate `tasks/get` resolves),
//!   after a cancel answer and after an update ack.
//! * **E-45 Outcome.** The payload of the first terminal observation is classified by
//!   [`crate::outcome::classify`] and its rule, if any, counts, as the tracker does when it
//!   settles (so a payload the codec already reported can count twice: once as a shape, once as
//!   an outcome). 2026: the payload of the `DetailedTask` (`tasks/get`, a notification; a
//!   `CreateTaskResult` is a `Task` and carries none). 2025: the `tasks/result` payload against
//!   the first terminal status, once both are known.
//! * **E-46 Cancel answers.** Classified by [`crate::cancel::classify_answer`]; a verdict with a
//!   violation counts. 2026: `-32602` for a task known terminal is `cancel_terminal_not_acked`
//!   (SHOULD). 2025: a task handed back for a task already terminal when the cancel was sent
//!   breaks the revision (terminal tasks are rejected with `-32602`). Jobs: the answer must be
//!   the one [`crate::server::CANCEL_TABLE`] gives for the status at send or for a status the job
//!   can have reached since; a 409 `job_generation_already_started` means the job started.
//! * **E-47 Input keys.** The task's key book: a key the client answers a second time is
//!   `input_answered_twice` (SHOULD); a key answered, then asked again after the task left
//!   `input_required`, is `input_key_reused`.
//! * **E-48 No resubmission.** A `tools/call` with the same tool and arguments as one still
//!   unanswered, or one that failed with a retryable error, is `resubmit_after_timeout`. An MRTR
//!   continuation (it carries `inputResponses` or `requestState`) is not a resubmission. A job
//!   submit with the same body under a different idempotency key, after an answer whose
//!   [`crate::admission`] advice says "retry with the same key" (or no answer, or a job still
//!   running), is too.
//! * **E-49 Cancellation names a request in progress** (E-9 seen from outside). A `notifications/cancelled` whose
//!   `requestId` names a request of the same direction that was already answered, or never sent,
//!   is `cancel_not_in_progress`.
//! * **E-50 MRTR.** A 2026 `tools/call` answered `resultType: "input_required"` is an MRTR round:
//!   neither a task nor a plain result; the call goes on with the continuation.
//! * **E-52 Principals.** Each principal of a transcript or job log (`http.principal` on its
//!   requests; a job log's answers belong to their requests' principal, paired as E-40 pairs
//!   them) is a client of its own: another principal's task or job is an unknown id to it. The
//!   rules only a prober can test ([`crate::probe_rules`], X-1 to X-14) run over the whole
//!   exchange.
//! * **E-51 Unknown tasks.** A status notification for a task the transcript never created or
//!   polled is `unknown_task_notification` (SHOULD); a 2026 task handed to a `tools/call` that did
//!   not declare the capability is `unsolicited_task`.
//!
//! ```
//! use longcall::endpoint::observer::{Direction, Event, McpObserver};
//! use longcall::wire::Message;
//! use longcall::{Model, Rule};
//! let mut o = McpObserver::new(Model::Task2025);
//! let lines = [
//!     (Direction::ClientToServer, r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{},"task":{}}}"#),
//!     (Direction::ClientToServer, r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x","arguments":{},"task":{}}}"#),
//! ];
//! for (i, (dir, text)) in lines.iter().enumerate() {
//!     o.handle_message(i + 1, 0, *dir, &Message::parse(text.as_bytes()).unwrap(), None);
//! }
//! o.handle_end(2);
//! let rules: Vec<Rule> = core::iter::from_fn(|| o.poll_event())
//!     .filter_map(|e| match e { Event::Violation { violation, .. } => Some(violation.rule), _ => None })
//!     .collect();
//! assert_eq!(rules, [Rule::ResubmitAfterTimeout]);
//! ```

use alloc::collections::{BTreeMap, VecDeque};
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use serde::Serialize;
use serde_json::Value;

use super::codec::{read_answer, read_notification, Asked};
use crate::admission::{self, Advice, ErrorCode, SubmitAnswer, Submitted};
use crate::cancel::{classify_answer, CancelAnswer, CancelVerdict, JobErrorCode};
use crate::error::{Error, Quoted};
use crate::lifecycle::{self, Observation, Seed};
use crate::model::Model;
use crate::outcome::{self, Payload};
use crate::poll::{PollPolicy, PollSchedule};
use crate::server::gate::{self, Headers, Rejection};
use crate::server::{CancelRule, CANCEL_TABLE};
use crate::status::Status;
use crate::tracker::keys::{InputKeys, KeyState};
use crate::tracker::{Failure, Input, RequestKind};
use crate::view::{codes, TaskView};
use crate::violation::{Rule, Violation};
use crate::wire::{mcp2025, mcp2026, Id, Message};

/// Which way a message went.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Direction {
    /// Client to server (`c2s`).
    #[serde(rename = "c2s")]
    ClientToServer,
    /// Server to client (`s2c`).
    #[serde(rename = "s2c")]
    ServerToClient,
}

impl Direction {
    /// Reads `c2s` / `s2c`.
    #[must_use]
    pub fn parse(s: &str) -> Option<Direction> {
        match s {
            "c2s" => Some(Direction::ClientToServer),
            "s2c" => Some(Direction::ServerToClient),
            _ => None,
        }
    }

    const fn other(self) -> Direction {
        match self {
            Direction::ClientToServer => Direction::ServerToClient,
            Direction::ServerToClient => Direction::ClientToServer,
        }
    }
}

/// What an observer found, drained with `poll_event`. `at` is the caller's position of the
/// message (a line number, a sequence number).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Event {
    /// A rule was broken.
    Violation {
        /// Where.
        at: usize,
        /// The task or job id, when the rule is about one.
        handle: Option<String>,
        /// What.
        violation: Violation,
    },
    /// Something worth knowing that breaks no rule.
    Note {
        /// Where.
        at: usize,
        /// What happened.
        text: String,
    },
}

/// Only the floors matter to an observer; the backoff of its policy is never used.
const FLOORS_ONLY: PollPolicy = PollPolicy {
    initial_ms: 1,
    multiplier_percent: 100,
    cap_ms: 1,
    jitter: crate::poll::Jitter::None,
    min_interval_ms: 1,
    max_polls: None,
    follow_server_interval: false,
};

/// What the observer knows about one task or job.
#[derive(Clone, Debug)]
struct Watch {
    last: Option<Status>,
    first_terminal: Option<Status>,
    /// The server's interval and `Retry-After` (E-44).
    schedule: Option<PollSchedule>,
    last_answer_at: Option<u64>,
    /// The next poll confirms (E-44) and is never too fast.
    confirm_due: bool,
    lost: bool,
    keys: InputKeys,
    /// 2025: a `tasks/result` payload that arrived before the terminal status was seen.
    fetched: Option<Payload>,
}

impl Watch {
    fn new() -> Watch {
        Watch {
            last: None,
            first_terminal: None,
            schedule: PollSchedule::new(FLOORS_ONLY, 0).ok(),
            last_answer_at: None,
            confirm_due: false,
            lost: false,
            keys: InputKeys::default(),
            fetched: None,
        }
    }

    fn answered(&mut self, now: u64, interval: Option<u64>) {
        self.last_answer_at = Some(now);
        if let (Some(s), Some(iv)) = (self.schedule.as_mut(), interval) {
            s.handle_server_interval(Some(iv));
        }
    }

    /// E-44: `Some((gap, floor))` when a poll sent at `now` comes too early.
    fn too_fast(&mut self, now: u64) -> Option<(u64, u64)> {
        let confirm = core::mem::replace(&mut self.confirm_due, false);
        if confirm {
            return None;
        }
        let s = self.schedule.as_ref()?;
        let at = self.last_answer_at?;
        let gap = now.saturating_sub(at);
        if let Some(nb) = s.not_before() {
            if now < nb {
                return Some((gap, nb.saturating_sub(at)));
            }
        }
        let iv = s.server_interval_ms()?;
        (gap < iv).then_some((gap, iv))
    }
}

/// The sink both observers write to.
#[derive(Default)]
struct Sink {
    events: VecDeque<Event>,
}

impl Sink {
    fn violate(&mut self, at: usize, handle: Option<&str>, rule: Rule, detail: String) {
        self.events.push_back(Event::Violation {
            at,
            handle: handle.map(String::from),
            violation: Violation::new(rule, detail),
        });
    }

    fn note(&mut self, at: usize, text: String) {
        self.events.push_back(Event::Note { at, text });
    }

    fn violations(&mut self, at: usize, handle: Option<&str>, list: Vec<Violation>) {
        for violation in list {
            self.events.push_back(Event::Violation {
                at,
                handle: handle.map(String::from),
                violation,
            });
        }
    }

    /// E-42: an answer the codec cannot read at all.
    fn unreadable(&mut self, at: usize, handle: Option<&str>, what: &str, e: &Error) {
        let rule = Rule::of_unreadable(e);
        self.violate(at, handle, rule, format!("{what} could not be read: {e}"));
    }

    /// E-43: one observed status of `id`.
    fn observe(
        &mut self,
        model: Model,
        w: &mut Watch,
        id: &str,
        at: usize,
        status: Status,
        via: &str,
    ) {
        if let Some(first) = w.first_terminal.filter(|f| *f != status) {
            self.violate(
                at,
                Some(id),
                Rule::TerminalConflict,
                format!("{via} reported \"{status}\" after the terminal status \"{first}\"; the first terminal status stands"),
            );
            return;
        }
        match w.last {
            None => {
                if let Ok(Seed::Violation) = lifecycle::seed(model, status) {
                    self.violate(
                        at,
                        Some(id),
                        Rule::BadSeed,
                        format!(
                            "{via}: first seen \"{status}\"; a {model} call must start \"{}\"",
                            lifecycle::seeds(model).first().map_or("", |s| s.as_str())
                        ),
                    );
                }
            }
            Some(prev) => match lifecycle::observe(model, prev, status) {
                Ok(Observation::TerminalConflict) => {
                    let first = w.first_terminal.unwrap_or(prev);
                    self.violate(
                        at,
                        Some(id),
                        Rule::TerminalConflict,
                        format!("{via} reported \"{status}\" after the terminal status \"{first}\"; the first terminal status stands"),
                    );
                    return;
                }
                Ok(Observation::Regression) => {
                    // As the tracker does: the status held stays, since no server moves back;
                    // a terminal status is still the server's final word (and a later
                    // different one conflicts with it).
                    if status.is_terminal() && w.first_terminal.is_none() {
                        w.first_terminal = Some(status);
                    }
                    self.violate(
                        at,
                        Some(id),
                        Rule::IllegalTransition,
                        format!("{via} reported \"{status}\" after \"{prev}\"; no allowed path leads there"),
                    );
                    return;
                }
                _ => {}
            },
        }
        if status.is_terminal() && w.first_terminal.is_none() {
            w.first_terminal = Some(status);
        }
        if model == Model::Task2026 && status != Status::InputRequired {
            w.keys.moved_on();
        }
        w.last = Some(status);
        if let (Some(p), Some(t)) = (w.fetched, w.first_terminal) {
            w.fetched = None;
            self.classify_fetched(model, id, at, t, p);
        }
    }

    /// E-45, 2026: the first terminal observation of a `DetailedTask` carries the outcome.
    fn settled(
        &mut self,
        model: Model,
        at: usize,
        before: Option<Status>,
        w: &Watch,
        task: &TaskView,
    ) {
        let (None, Some(status)) = (before, w.first_terminal) else {
            return;
        };
        if model != Model::Task2026 || status != task.status {
            return;
        }
        let payload = Payload {
            result: task.result.as_ref().map(|r| r.is_error),
            error: task.error.is_some(),
        };
        if let Ok((outcome, Some(rule))) = outcome::classify(model, status, payload) {
            self.violate(
                at,
                Some(&task.task_id),
                rule,
                format!(
                    "a \"{status}\" task with {payload} settles as {}",
                    outcome.as_str()
                ),
            );
        }
    }

    /// E-45, 2025.
    fn classify_fetched(
        &mut self,
        model: Model,
        id: &str,
        at: usize,
        status: Status,
        payload: Payload,
    ) {
        if let Ok((_, Some(rule))) = outcome::classify(model, status, payload) {
            self.violate(
                at,
                Some(id),
                rule,
                format!("the task is \"{status}\" but tasks/result answered {payload}"),
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// MCP transcripts

/// A request waiting for its answer.
#[derive(Clone, Debug)]
struct Pending {
    at: usize,
    method: String,
    params: Option<Value>,
    /// E-41: the gate rules the request breaks.
    probes: Vec<Rejection>,
    /// The status of the named task when the request was sent.
    status_at_send: Option<Status>,
}

impl Pending {
    fn task_id(&self) -> Option<&str> {
        self.params
            .as_ref()
            .and_then(|p| p.get("taskId"))
            .and_then(Value::as_str)
    }
}

/// E-48: what identifies a `tools/call` (the tool and its arguments).
fn call_fingerprint(params: Option<&Value>) -> String {
    let get = |k| {
        params
            .and_then(|p| p.get(k))
            .cloned()
            .unwrap_or(Value::Null)
    };
    format!("{}{}", get("name"), get("arguments"))
}

fn is_continuation(params: Option<&Value>) -> bool {
    params.is_some_and(|p| p.get("inputResponses").is_some() || p.get("requestState").is_some())
}

/// The observer of an MCP transcript (both revisions). See the module docs for its rules.
pub struct McpObserver {
    model: Model,
    tasks: BTreeMap<String, Watch>,
    pending: BTreeMap<(Direction, Id), Pending>,
    answered: BTreeMap<(Direction, Id), usize>,
    /// E-48: `tools/call` fingerprints that failed with a retryable error, with where and why.
    failed_calls: Vec<(String, usize, String)>,
    /// E-51: notifications for tasks not known when they arrived.
    unknown_notes: Vec<(usize, String, Status)>,
    sink: Sink,
}

impl McpObserver {
    /// An observer of a transcript that speaks `model` (`Task2026` or `Task2025`; see
    /// [`detect_model`]).
    #[must_use]
    pub fn new(model: Model) -> McpObserver {
        McpObserver {
            model: if model.is_task() {
                model
            } else {
                Model::Task2026
            },
            tasks: BTreeMap::new(),
            pending: BTreeMap::new(),
            answered: BTreeMap::new(),
            failed_calls: Vec::new(),
            unknown_notes: Vec::new(),
            sink: Sink::default(),
        }
    }

    /// The model the transcript is read as.
    #[must_use]
    pub fn model(&self) -> Model {
        self.model
    }

    /// How many tasks the transcript created or polled.
    #[must_use]
    pub fn handles(&self) -> usize {
        self.tasks.len()
    }

    /// The next finding, or `None`. Drain after every `handle_*` call (or once at the end).
    #[must_use]
    pub fn poll_event(&mut self) -> Option<Event> {
        self.sink.events.pop_front()
    }

    /// One message of the transcript: `at` is its position (for the findings), `now` its time in
    /// ms, `dir` which way it went, `headers` the HTTP request headers of a client request sent
    /// over Streamable HTTP (`None` on stdio or for other messages).
    pub fn handle_message(
        &mut self,
        at: usize,
        now: u64,
        dir: Direction,
        message: &Message,
        headers: Option<&Headers<'_>>,
    ) {
        match message {
            Message::Request { id, method, params } => {
                self.request(at, now, dir, id, method, params.as_ref(), headers)
            }
            Message::Notification { method, params } => {
                self.notification(at, dir, method, params.as_ref(), message)
            }
            Message::Response { id, .. } | Message::Error { id, .. } => {
                self.response(at, now, dir, id, message)
            }
        }
    }

    /// The transcript ended at `at`: requests never answered, notifications about tasks never
    /// seen, and tasks that never reached a terminal status are reported.
    pub fn handle_end(&mut self, at: usize) {
        let open = core::mem::take(&mut self.pending);
        let mut open: Vec<_> = open.into_values().collect();
        open.sort_by_key(|p| p.at);
        for p in open {
            for r in &p.probes {
                self.sink.violate(
                    p.at,
                    p.task_id(),
                    r.rule.violation(),
                    format!(
                        "{} ({}); the request was never answered",
                        r.error.message,
                        r.rule.id()
                    ),
                );
            }
        }
        for (line, id, status) in core::mem::take(&mut self.unknown_notes) {
            if !self.tasks.contains_key(&id) {
                self.sink.violate(
                    line,
                    Some(&id),
                    Rule::UnknownTaskNotification,
                    format!("a status notification (\"{status}\") named a task this session never created or polled"),
                );
            }
        }
        for (id, w) in &self.tasks {
            if w.first_terminal.is_none() && !w.lost {
                self.sink.note(
                    at,
                    format!("task {id} did not reach a terminal status in this transcript"),
                );
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn request(
        &mut self,
        at: usize,
        now: u64,
        dir: Direction,
        id: &Id,
        method: &str,
        params: Option<&Value>,
        headers: Option<&Headers<'_>>,
    ) {
        let mut probes = Vec::new();
        let task_id = params
            .and_then(|p| p.get("taskId"))
            .and_then(Value::as_str)
            .map(String::from);
        if dir == Direction::ClientToServer {
            probes = gate::rejections(self.model, method, params, headers);
            if method == "tools/call" && !is_continuation(params) {
                self.resubmission(at, params);
            }
            if let Some(tid) = task_id.as_deref() {
                if let Some(w) = self.tasks.get_mut(tid) {
                    if method == "tasks/get" && probes.is_empty() {
                        if let Some((gap, floor)) = w.too_fast(now) {
                            self.sink.violate(
                                at,
                                Some(tid),
                                Rule::PollTooFast,
                                format!("tasks/get sent {gap} ms after the previous answer; the server asked for at least {floor} ms"),
                            );
                        }
                    }
                    if method == "tasks/update" {
                        let keys = params
                            .and_then(|p| p.get("inputResponses"))
                            .and_then(Value::as_object);
                        for key in keys.into_iter().flat_map(|m| m.keys()) {
                            match w.keys.get(key) {
                                Some(KeyState::Answered { .. } | KeyState::Reused) => {
                                    self.sink.violate(
                                        at,
                                        Some(tid),
                                        Rule::InputAnsweredTwice,
                                        format!(
                                            "input key {} was answered a second time",
                                            Quoted(key)
                                        ),
                                    )
                                }
                                _ => w.keys.set(key, KeyState::Answered { moved_on: false }),
                            }
                        }
                    }
                }
            }
        }
        let status_at_send = task_id
            .as_deref()
            .and_then(|t| self.tasks.get(t))
            .and_then(|w| w.last);
        self.pending.insert(
            (dir, id.clone()),
            Pending {
                at,
                method: method.into(),
                params: params.cloned(),
                probes,
                status_at_send,
            },
        );
    }

    /// E-48 for a `tools/call`.
    fn resubmission(&mut self, at: usize, params: Option<&Value>) {
        let fp = call_fingerprint(params);
        let unanswered = self
            .pending
            .iter()
            .filter(|((d, _), p)| *d == Direction::ClientToServer && p.method == "tools/call")
            .filter(|(_, p)| !is_continuation(p.params.as_ref()))
            .filter(|(_, p)| call_fingerprint(p.params.as_ref()) == fp)
            .map(|(_, p)| p.at)
            .min();
        if let Some(first) = unanswered {
            self.sink.violate(
                at,
                None,
                Rule::ResubmitAfterTimeout,
                format!("the same tools/call (same tool and arguments) as line {first} was sent again while that one was still unanswered (a local timeout?); a timeout is not a failure of the call, and resubmitting may run it twice"),
            );
        } else if let Some((_, first, why)) = self.failed_calls.iter().find(|(f, _, _)| *f == fp) {
            self.sink.violate(
                at,
                None,
                Rule::ResubmitAfterTimeout,
                format!("the same tools/call (same tool and arguments) as line {first} was sent again after {why}; recover through the handle, never by resubmitting"),
            );
        }
    }

    fn notification(
        &mut self,
        at: usize,
        dir: Direction,
        method: &str,
        params: Option<&Value>,
        message: &Message,
    ) {
        if method == "notifications/cancelled" {
            // E-49: the sender cancels a request it sent itself.
            let Some(rid) = params.and_then(|p| p.get("requestId")) else {
                return;
            };
            let rid = match rid {
                Value::String(s) => Id::from(s.as_str()),
                Value::Number(n) => match n.as_i64() {
                    Some(n) => Id::from(n),
                    None => return,
                },
                _ => return,
            };
            let key = (dir, rid);
            if self.pending.contains_key(&key) {
                return;
            }
            let detail = match self.answered.get(&key) {
                Some(line) => format!("notifications/cancelled names request {} already answered (line {line}); cancellation must only reference requests in progress", key.1.to_value()),
                None => format!("notifications/cancelled names request {}, which this side never sent", key.1.to_value()),
            };
            self.sink
                .violate(at, None, Rule::CancelNotInProgress, detail);
            return;
        }
        if dir != Direction::ServerToClient {
            return;
        }
        let read = match read_notification(self.model, message) {
            Ok(Some(r)) => r,
            Ok(None) => return,
            Err(e) => {
                let tid = params
                    .and_then(|p| p.get("taskId").or_else(|| p.pointer("/task/taskId")))
                    .and_then(Value::as_str);
                self.sink.unreadable(at, tid, "a status notification", &e);
                return;
            }
        };
        let Input::TaskNotified { task } = read.input else {
            return;
        };
        self.sink
            .violations(at, Some(&task.task_id), read.violations);
        match self.tasks.get_mut(&task.task_id) {
            Some(w) => {
                let before = w.first_terminal;
                self.sink.observe(
                    self.model,
                    w,
                    &task.task_id,
                    at,
                    task.status,
                    "a status notification",
                );
                self.sink.settled(self.model, at, before, w, &task);
            }
            None => self.unknown_notes.push((at, task.task_id, task.status)),
        }
    }

    fn response(&mut self, at: usize, now: u64, dir: Direction, id: &Id, message: &Message) {
        let asked = dir.other();
        let Some(req) = self.pending.remove(&(asked, id.clone())) else {
            self.sink.note(
                at,
                format!("a response with id {} matches no request", id.to_value()),
            );
            return;
        };
        self.answered.insert((asked, id.clone()), at);
        let error_code = match message {
            Message::Error { error, .. } => Some(error.code),
            _ => None,
        };
        // E-41
        if !req.probes.is_empty() {
            let rejected = req.probes.iter().any(|r| Some(r.error.code) == error_code);
            for r in &req.probes {
                if rejected {
                    self.sink.note(
                        at,
                        format!(
                            "line {}: {} ({}); the server rejected the request with {} as it must",
                            req.at,
                            r.error.message,
                            r.rule.id(),
                            error_code.unwrap_or(r.error.code)
                        ),
                    );
                } else {
                    let got = error_code
                        .map_or_else(|| "a success answer".to_string(), |c| format!("error {c}"));
                    self.sink.violate(
                        req.at,
                        req.task_id(),
                        r.rule.violation(),
                        format!("{} ({}); the server answered with {got} instead of rejecting it with {}", r.error.message, r.rule.id(), r.error.code),
                    );
                }
            }
            if rejected || !gate::method_exists(self.model, &req.method) {
                return;
            }
        }
        if asked != Direction::ClientToServer {
            return;
        }
        let tid = req.task_id().map(String::from);
        match (req.method.as_str(), tid) {
            ("tools/call", _) => self.call_answer(at, now, &req, message),
            ("tasks/get", Some(tid)) => self.get_answer(at, now, &tid, message),
            ("tasks/cancel", Some(tid)) => self.cancel_answer(at, now, &tid, &req, message),
            ("tasks/update", Some(tid)) => {
                if let Some(w) = self.tasks.get_mut(&tid) {
                    w.confirm_due = true;
                }
                self.tracker_answer(at, &tid, RequestKind::Update, message);
            }
            ("tasks/result", Some(tid)) => self.result_answer(at, &tid, message),
            ("tasks/list", _) => self.list_answer(at, message),
            _ => {}
        }
    }

    /// Reads an answer to a tracker request through the codec (E-42); `None` when unreadable.
    fn tracker_answer(
        &mut self,
        at: usize,
        tid: &str,
        kind: RequestKind,
        message: &Message,
    ) -> Option<Input> {
        match read_answer(self.model, Asked::Tracker(kind), message) {
            Ok(r) => {
                self.sink.violations(at, Some(tid), r.violations);
                Some(r.input)
            }
            Err(e) => {
                self.sink.unreadable(at, Some(tid), "the answer", &e);
                None
            }
        }
    }

    fn call_answer(&mut self, at: usize, now: u64, req: &Pending, message: &Message) {
        let params = req.params.as_ref();
        if let Message::Response { result, .. } = message {
            // E-50
            if self.model == Model::Task2026
                && result.get("resultType").and_then(Value::as_str) == Some("input_required")
            {
                self.sink.note(at, format!("line {}: an MRTR round (input_required); the call goes on with its continuation", req.at));
                return;
            }
        }
        let read = match read_answer(self.model, Asked::Call, message) {
            Ok(r) => r,
            Err(e) => {
                self.sink.unreadable(at, None, "the tools/call answer", &e);
                return;
            }
        };
        match read.input {
            Input::CallError { error } => {
                // E-48: only a failure that invites a retry makes a later identical call a
                // resubmission; a permanent "no" does not.
                let permanent = !matches!(mcp2026::classify_error(&error), mcp2026::TaskErrorKind::Other(c) if c != codes::INVALID_REQUEST);
                if !permanent {
                    self.failed_calls.push((
                        call_fingerprint(params),
                        req.at,
                        format!("it failed with error {} (line {at})", error.code),
                    ));
                }
                self.sink.violations(at, None, read.violations);
            }
            Input::TaskCreated { task } => {
                let tid = task.task_id.clone();
                self.sink.violations(at, Some(&tid), read.violations);
                if self.model == Model::Task2026 && !gate::has_capability(params) {
                    self.sink.violate(at, Some(&tid), Rule::UnsolicitedTask, format!("the tools/call on line {} did not declare {}, yet the answer is a task", req.at, mcp2026::EXTENSION));
                }
                self.created(at, now, &task);
            }
            _ => self.sink.violations(at, None, read.violations),
        }
    }

    fn created(&mut self, at: usize, now: u64, task: &TaskView) {
        let model = self.model;
        let w = self
            .tasks
            .entry(task.task_id.clone())
            .or_insert_with(Watch::new);
        w.answered(now, task.poll_interval_ms);
        // E-44: the server created it durably; the first tasks/get confirms.
        w.confirm_due = true;
        self.sink.observe(
            model,
            w,
            &task.task_id,
            at,
            task.status,
            "the CreateTaskResult",
        );
    }

    fn get_answer(&mut self, at: usize, now: u64, tid: &str, message: &Message) {
        let model = self.model;
        match self.tracker_answer(at, tid, RequestKind::Get, message) {
            Some(Input::TaskPolled { task }) => {
                let w = self.tasks.entry(tid.to_string()).or_insert_with(Watch::new);
                w.answered(now, task.poll_interval_ms);
                let before = w.first_terminal;
                self.sink
                    .observe(model, w, tid, at, task.status, "tasks/get");
                self.sink.settled(model, at, before, w, &task);
                // E-47: keys asked again after the task moved on (or after a poll no longer
                // listed them) are reused.
                if task.status == Status::InputRequired {
                    w.keys
                        .consumed_unless_listed(|k| task.input_requests.iter().any(|r| r.key == k));
                }
                for r in &task.input_requests {
                    match w.keys.get(&r.key) {
                        Some(KeyState::Answered { moved_on: true }) => {
                            w.keys.set(&r.key, KeyState::Reused);
                            self.sink.violate(
                                at,
                                Some(tid),
                                Rule::InputKeyReused,
                                format!(
                                    "input key {} was answered and later asked again",
                                    Quoted(&r.key)
                                ),
                            );
                        }
                        None => w.keys.set(&r.key, KeyState::Asked),
                        _ => {}
                    }
                }
            }
            Some(Input::RequestFailed {
                failure: Failure::Rpc { error },
                ..
            }) => {
                if error.code == codes::INVALID_PARAMS {
                    self.sink.note(at, format!("tasks/get for {tid}: -32602, the handle no longer resolves (outcome: lost)"));
                    if let Some(w) = self.tasks.get_mut(tid) {
                        w.lost = true;
                    }
                } else {
                    self.sink.note(
                        at,
                        format!("tasks/get for {tid} answered error {}", error.code),
                    );
                }
            }
            _ => {}
        }
    }

    fn cancel_answer(&mut self, at: usize, now: u64, tid: &str, req: &Pending, message: &Message) {
        let model = self.model;
        let before = req.status_at_send;
        let known = self.tasks.get(tid).is_some_and(|w| !w.lost);
        if let Some(w) = self.tasks.get_mut(tid) {
            w.confirm_due = true;
        }
        let Some(Input::CancelAnswered { answer }) =
            self.tracker_answer(at, tid, RequestKind::Cancel, message)
        else {
            return;
        };
        let verdict = classify_answer(model, answer);
        if let Some(rule) = verdict.violation() {
            self.sink.violate(
                at,
                Some(tid),
                rule,
                format!(
                    "tasks/cancel answered {answer}; {model} does not answer a cancel that way ({})",
                    match model {
                        Model::Task2026 => "expected: the empty ack, whatever the task's status",
                        _ => "expected: the task, cancelled, or -32602 for a task already ended",
                    }
                ),
            );
        }
        let terminal_before = known && before.is_some_and(Status::is_terminal);
        match (verdict, answer) {
            (CancelVerdict::NotFound, _) if model == Model::Task2026 && terminal_before => {
                self.sink.violate(
                    at,
                    Some(tid),
                    Rule::CancelTerminalNotAcked,
                    format!(
                        "cancelling a {} task was answered -32602; on 2026 it gets the empty ack (resultType complete) any cancel gets",
                        before.map_or("terminal", Status::as_str)
                    ),
                );
            }
            (CancelVerdict::NotFound | CancelVerdict::Rejected, _) => {
                if !known {
                    self.sink.note(
                        at,
                        format!("tasks/cancel for {tid}: -32602, unknown or expired task"),
                    );
                } else if !terminal_before {
                    self.sink.note(at, format!("tasks/cancel for {tid} answered -32602 while last seen \"{}\" (perhaps it ended in between)", before.map_or("?", Status::as_str)));
                }
            }
            (CancelVerdict::RequestFailed, a) => {
                self.sink.note(
                    at,
                    format!("tasks/cancel for {tid} failed ({a}); the cancel did not take effect"),
                );
            }
            (_, CancelAnswer::Task { status }) => {
                // 2025 only: a 2026 cancel answered with a task was reported above, with the
                // ack it should have been.
                if terminal_before && model == Model::Task2025 {
                    self.sink.violate(at, Some(tid), Rule::CancelAnswerBreaksRevision, format!("cancelling a task already \"{}\" must be rejected with -32602, but it was answered with a task", before.map_or("", Status::as_str)));
                }
                if let Some(w) = self.tasks.get_mut(tid) {
                    w.last_answer_at = Some(now);
                    self.sink
                        .observe(model, w, tid, at, status.into(), "the tasks/cancel answer");
                }
            }
            _ => {}
        }
    }

    fn result_answer(&mut self, at: usize, tid: &str, message: &Message) {
        let model = self.model;
        let payload = match self.tracker_answer(at, tid, RequestKind::FetchResult, message) {
            Some(Input::ResultFetched { result }) => Payload {
                result: Some(result.is_error),
                error: false,
            },
            Some(Input::RequestFailed {
                failure: Failure::Rpc { error },
                ..
            }) => {
                if error.code == codes::INVALID_PARAMS {
                    self.sink
                        .note(at, format!("tasks/result for {tid}: -32602, unknown task"));
                    return;
                }
                Payload::ERROR
            }
            _ => return,
        };
        let Some(w) = self.tasks.get_mut(tid) else {
            return;
        };
        match w.first_terminal {
            Some(status) => self.sink.classify_fetched(model, tid, at, status, payload),
            None => w.fetched = Some(payload),
        }
    }

    fn list_answer(&mut self, at: usize, message: &Message) {
        let Message::Response { result, .. } = message else {
            return;
        };
        let Ok(page) = mcp2025::read_list(result) else {
            return;
        };
        self.sink.violations(at, None, page.violations);
        for task in page.value.tasks {
            if let Some(w) = self.tasks.get_mut(&task.task_id) {
                self.sink
                    .observe(self.model, w, &task.task_id, at, task.status, "tasks/list");
            }
        }
    }
}

/// The revision an MCP transcript speaks, from `(MCP-Protocol-Version header, message)` pairs in
/// order: the header, a `_meta` protocol version or `initialize`'s `protocolVersion` decide;
/// otherwise the shapes only one revision has are counted (a 2026 harness may send a 2025-only
/// method as a probe, so one shape does not decide alone). With no evidence at all: 2025.
/// Returns the model and what it rests on.
pub fn detect_model<'a, I>(messages: I) -> (Model, &'static str)
where
    I: IntoIterator<Item = (Option<&'a str>, &'a Message)>,
{
    use crate::wire::detect::{self, Basis};
    let (mut y26, mut y25) = (0usize, 0usize);
    for (header, message) in messages {
        if let Message::Request {
            method,
            params: Some(p),
            ..
        } = message
        {
            if method == "initialize" {
                if let Some(m) = p
                    .get("protocolVersion")
                    .and_then(Value::as_str)
                    .and_then(detect::from_protocol_version)
                {
                    return (m, "initialize protocolVersion");
                }
            }
        }
        let d = detect::detect(None, header, Some(message));
        match (d.basis, d.model) {
            (Basis::Header, Some(m)) => return (m, "MCP-Protocol-Version header"),
            (Basis::ProtocolMeta, Some(m)) => return (m, "_meta protocolVersion"),
            (Basis::Shape(_), Some(Model::Task2026)) => y26 += 1,
            (Basis::Shape(_), Some(Model::Task2025)) => y25 += 1,
            _ => {}
        }
    }
    match (y26, y25) {
        (0, 0) => (Model::Task2025, "no evidence (default)"),
        (a, b) if a >= b => (Model::Task2026, "message shapes"),
        _ => (Model::Task2025, "message shapes"),
    }
}

// ---------------------------------------------------------------------------------------------
// Job logs

/// A job request as logged.
#[derive(Clone, Copy, Debug)]
pub struct JobRequest<'a> {
    /// The HTTP method.
    pub method: &'a str,
    /// The path: `/jobs`, `/jobs/{id}`, `/jobs/{id}/cancel`, `/jobs/wait`, or an Open API path
    /// (`/v1/{image,video}-router/generate`, `/v1/jobs/{id}/status|result|cancel`).
    pub path: &'a str,
    /// The JSON body (`Value::Null` when none).
    pub body: &'a Value,
}

/// A `Retry-After` as logged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RetryAfter<'a> {
    /// The header text (delta-seconds or an HTTP date), read by [`crate::time::parse_retry_after_ms`].
    Header(&'a str),
    /// Already in milliseconds.
    Ms(u64),
}

/// What a job request was, by its method and path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum JobCall {
    Submit {
        open_api: bool,
    },
    Get {
        id: String,
        open_api: bool,
    },
    /// Open API `GET /v1/jobs/{id}/result`: fetching a completed job's result is not a poll.
    Result(String),
    Cancel {
        id: String,
        open_api: bool,
    },
    Wait,
    Other,
}

impl JobCall {
    /// Both dialects (D-2): the MCP job tools over HTTP (`/jobs...`) and the Sume Open API
    /// (`/v1/{image,video}-router/generate`, `/v1/jobs/{id}/status|result|cancel`).
    pub(crate) fn of(method: &str, path: &str) -> JobCall {
        let path = path.split('?').next().unwrap_or_default();
        let (open_api, path) = match path.strip_prefix("/v1") {
            Some(rest) => (true, rest),
            None => (false, path),
        };
        let mut parts = path.trim_matches('/').split('/');
        let id_ok = |id: &str| !id.is_empty() && id != "wait";
        match (
            method,
            parts.next(),
            parts.next(),
            parts.next(),
            parts.next(),
        ) {
            ("POST", Some("jobs"), None, _, _) if !open_api => JobCall::Submit { open_api },
            ("POST", Some("image-router" | "video-router"), Some("generate"), None, _)
                if open_api =>
            {
                JobCall::Submit { open_api }
            }
            ("POST", Some("jobs"), Some("wait"), None, _) if !open_api => JobCall::Wait,
            ("GET", Some("jobs"), Some(id), None, _) if id_ok(id) && !open_api => JobCall::Get {
                id: id.into(),
                open_api,
            },
            ("GET", Some("jobs"), Some(id), Some("status"), None) if id_ok(id) && open_api => {
                JobCall::Get {
                    id: id.into(),
                    open_api,
                }
            }
            ("GET", Some("jobs"), Some(id), Some("result"), None) if id_ok(id) && open_api => {
                JobCall::Result(id.into())
            }
            ("POST", Some("jobs"), Some(id), Some("cancel"), None) if !id.is_empty() => {
                JobCall::Cancel {
                    id: id.into(),
                    open_api,
                }
            }
            _ => JobCall::Other,
        }
    }

    pub(crate) fn job(&self) -> Option<&str> {
        match self {
            JobCall::Get { id, .. } | JobCall::Cancel { id, .. } | JobCall::Result(id) => Some(id),
            _ => None,
        }
    }
}

#[derive(Clone, Debug)]
struct JobPending {
    at: usize,
    label: String,
    call: JobCall,
    status_at_send: Option<Status>,
}

/// What became of a submit (E-48), by its admission advice.
#[derive(Clone, Debug, PartialEq)]
enum SubmitState {
    Unanswered,
    Advised(Advice, u16),
    Created(String),
}

#[derive(Clone, Debug)]
struct Submit {
    fingerprint: String,
    key: Option<String>,
    at: usize,
    state: SubmitState,
}

/// The observer of a job log. See the module docs for its rules.
#[derive(Default)]
pub struct JobObserver {
    jobs: BTreeMap<String, Watch>,
    submits: Vec<Submit>,
    queue: VecDeque<JobPending>,
    sink: Sink,
}

impl JobObserver {
    /// An empty observer.
    #[must_use]
    pub fn new() -> JobObserver {
        JobObserver::default()
    }

    /// How many jobs the log showed.
    #[must_use]
    pub fn handles(&self) -> usize {
        self.jobs.len()
    }

    /// The next finding, or `None`. Drain after every `handle_*` call (or once at the end).
    #[must_use]
    pub fn poll_event(&mut self) -> Option<Event> {
        self.sink.events.pop_front()
    }

    /// A request the client sent at `now`.
    pub fn handle_request(&mut self, at: usize, now: u64, request: JobRequest<'_>) {
        let call = JobCall::of(request.method, request.path);
        if let JobCall::Get { id, .. } = &call {
            if let Some(w) = self.jobs.get_mut(id) {
                if let Some((gap, floor)) = w.too_fast(now) {
                    self.sink.violate(at, Some(id), Rule::PollTooFast, format!("GET {} sent {gap} ms after the previous answer; the server asked for at least {floor} ms (Retry-After)", request.path));
                }
            }
        }
        if let JobCall::Submit { .. } = call {
            self.submit(at, request.body);
        }
        let status_at_send = call
            .job()
            .and_then(|id| self.jobs.get(id))
            .and_then(|w| w.last);
        self.queue.push_back(JobPending {
            at,
            label: format!("{} {}", request.method, request.path),
            call,
            status_at_send,
        });
    }

    /// E-48 for a submit.
    fn submit(&mut self, at: usize, body: &Value) {
        let key = body
            .get("idempotency_key")
            .and_then(Value::as_str)
            .map(String::from);
        let mut rest = body.clone();
        if let Some(o) = rest.as_object_mut() {
            o.remove("idempotency_key");
        }
        let fingerprint = crate::json_text(&rest);
        for s in &self.submits {
            if s.fingerprint != fingerprint || (s.key.is_some() && s.key == key) {
                continue;
            }
            let why = match &s.state {
                SubmitState::Unanswered => {
                    "it got no answer (a local timeout is not a failure of the job)".to_string()
                }
                SubmitState::Advised(advice, status) if !advice.is_permanent() => format!(
                    "it was answered HTTP {status} (advice: {}, with the same key)",
                    advice.as_str()
                ),
                SubmitState::Created(id)
                    if self
                        .jobs
                        .get(id)
                        .is_some_and(|w| w.first_terminal.is_none()) =>
                {
                    format!("it created job {id}, which was still running")
                }
                _ => continue,
            };
            self.sink.violate(at, None, Rule::ResubmitAfterTimeout, format!("the submit of line {} was sent again with a different idempotency key after {why}; poll the handle or retry with the same key", s.at));
            break;
        }
        self.submits.push(Submit {
            fingerprint,
            key,
            at,
            state: SubmitState::Unanswered,
        });
    }

    /// The answer to the oldest unanswered request (E-40): HTTP `status` (0: no answer arrived),
    /// its `Retry-After`, its JSON body.
    pub fn handle_answer(
        &mut self,
        at: usize,
        now: u64,
        status: u16,
        retry_after: Option<RetryAfter<'_>>,
        body: &Value,
    ) {
        let Some(req) = self.queue.pop_front() else {
            self.sink
                .note(at, "an answer with no request before it".into());
            return;
        };
        let retry_ms = match retry_after {
            Some(RetryAfter::Ms(ms)) => Some(ms),
            Some(RetryAfter::Header(h)) => crate::time::parse_retry_after_ms(h, now).ok(),
            None => None,
        };
        if let JobCall::Submit { open_api } = req.call {
            self.submit_answer(&req, open_api, status, retry_ms, body);
        }
        if status == 0 {
            self.sink.note(at, format!("{} got no answer", req.label));
            return;
        }
        if let JobCall::Cancel { id, open_api } = &req.call {
            self.cancel_answer(at, id, *open_api, req.status_at_send, status, body);
        }
        if status == 404 {
            // O-6: only the API's own `not_found` loses the job; a proxy's page or a route the
            // server lacks is a failed request, and the job is still asked after it.
            let not_found = crate::wire::sume::read_error(status, body)
                .is_ok_and(|e| JobErrorCode::parse(&e.code) == JobErrorCode::NotFound);
            match req.call.job() {
                Some(id) if not_found => {
                    self.sink.note(
                        at,
                        format!(
                            "job {id}: 404 not_found (unknown, or another member's); outcome: lost"
                        ),
                    );
                    if let Some(w) = self.jobs.get_mut(id) {
                        w.lost = true;
                    }
                }
                Some(id) => self.sink.note(
                    at,
                    format!("job {id}: a 404 that does not say not_found (not the job API's answer); the job is not lost"),
                ),
                None => {}
            }
            return;
        }
        let mut seen = Vec::new();
        if (200..300).contains(&status) {
            use crate::wire::{sume, sume_open};
            let read = match &req.call {
                JobCall::Wait => sume::read_wait(body).map(|w| w.jobs),
                JobCall::Submit { open_api: false } => sume::read_create(body).map(|c| c.jobs),
                JobCall::Submit { open_api: true } => {
                    sume_open::read_submit(body).map(|j| alloc::vec![j])
                }
                JobCall::Get {
                    open_api: false, ..
                }
                | JobCall::Cancel {
                    open_api: false, ..
                } => sume::read_job(body.get("job").unwrap_or(body)).map(|j| alloc::vec![j]),
                JobCall::Get { id, open_api: true } | JobCall::Cancel { id, open_api: true } => {
                    sume_open::read_status(id, body).map(|j| alloc::vec![j])
                }
                JobCall::Result(_) | JobCall::Other => Ok(Vec::new()),
            };
            match read {
                Ok(jobs) => seen = jobs,
                Err(e) => self.sink.unreadable(
                    at,
                    req.call.job(),
                    &format!("the answer to {}", req.label),
                    &e,
                ),
            }
        }
        for job in seen {
            let w = self.jobs.entry(job.id.clone()).or_insert_with(Watch::new);
            w.last_answer_at = Some(now);
            if let (Some(s), Some(ms)) = (w.schedule.as_mut(), retry_ms) {
                s.handle_retry_after(now, ms);
            }
            self.sink
                .observe(Model::Job, w, &job.id, at, job.status, &req.label);
        }
        if let (Some(id), Some(ms)) = (req.call.job(), retry_ms) {
            let w = self.jobs.entry(id.to_string()).or_insert_with(Watch::new);
            w.last_answer_at = Some(now);
            if let Some(s) = w.schedule.as_mut() {
                s.handle_retry_after(now, ms);
            }
        }
    }

    fn submit_answer(
        &mut self,
        req: &JobPending,
        open_api: bool,
        status: u16,
        retry_ms: Option<u64>,
        body: &Value,
    ) {
        let state = if status == 0 {
            SubmitState::Unanswered
        } else {
            let advice = match open_api {
                // D-6: the Open API's `retryable: false` makes an answer final.
                true if !(200..300).contains(&status) => {
                    let mut e = crate::wire::sume_open::read_error(status, &[], Some(body), 0);
                    if e.retry_after_ms.is_none() {
                        e.retry_after_ms = retry_ms;
                    }
                    crate::wire::sume_open::advice(&e)
                }
                _ => {
                    let code = crate::wire::sume::read_error(status, body)
                        .map(|e| ErrorCode::parse(&e.code))
                        .unwrap_or_default();
                    admission::classify(&Submitted::Answer(SubmitAnswer {
                        http_status: status,
                        error_code: code,
                        retry_after_ms: retry_ms,
                    }))
                }
            };
            let created = if open_api {
                crate::wire::sume_open::read_submit(body).map(|j| j.id)
            } else {
                crate::wire::sume::read_create(body).and_then(|c| {
                    c.jobs
                        .into_iter()
                        .next()
                        .map(|j| j.id)
                        .ok_or(Error::Malformed {
                            what: "submit answer",
                            reason: "no job in it".into(),
                        })
                })
            };
            match advice {
                Advice::Accepted => match created {
                    Ok(id) => SubmitState::Created(id),
                    Err(_) => SubmitState::Advised(advice, status),
                },
                Advice::Reconcile => SubmitState::Unanswered,
                other => SubmitState::Advised(other, status),
            }
        };
        if let Some(s) = self.submits.iter_mut().rev().find(|s| s.at == req.at) {
            s.state = state;
        }
    }

    /// E-46 for jobs.
    fn cancel_answer(
        &mut self,
        at: usize,
        id: &str,
        open_api: bool,
        before: Option<Status>,
        status: u16,
        body: &Value,
    ) {
        if let Some(w) = self.jobs.get_mut(id) {
            w.confirm_due = true;
        }
        let read = if open_api {
            crate::wire::sume_open::cancel_answer(status, Some(body))
        } else {
            crate::wire::sume::cancel_answer(status, Some(body))
        };
        let answer = match read {
            Ok(a) => a,
            Err(e) => {
                self.sink
                    .unreadable(at, Some(id), "the jobs_cancel answer", &e);
                return;
            }
        };
        let verdict = classify_answer(Model::Job, answer);
        if let Some(rule) = verdict.violation() {
            self.sink.violate(at, Some(id), rule, format!("jobs_cancel answered {answer}; the rules allow 200 with the canceled job, 409 job_generation_already_started (cancelable: false), 409 job_not_cancelable or 404 not_found"));
            return;
        }
        let expected = |rule: CancelRule| match rule {
            CancelRule::Cancel | CancelRule::Replay => CancelVerdict::Cancelled,
            CancelRule::Started => CancelVerdict::TooLate,
            CancelRule::NotCancelable => CancelVerdict::AlreadyFinished,
        };
        if let (
            Some(before),
            CancelVerdict::Cancelled | CancelVerdict::TooLate | CancelVerdict::AlreadyFinished,
        ) = (before, verdict)
        {
            // The answer may reflect the status at send or any status the job reached since.
            let reachable = |s: Status| {
                s == before
                    || lifecycle::observe(Model::Job, before, s).is_ok_and(|o| o.is_consistent())
            };
            let fits = CANCEL_TABLE
                .iter()
                .any(|&(s, rule)| expected(rule) == verdict && reachable(s));
            if !fits {
                let want = CANCEL_TABLE
                    .iter()
                    .find(|(s, _)| *s == before)
                    .map_or("", |&(_, r)| match r {
                        CancelRule::Cancel => "200 with the canceled job",
                        CancelRule::Replay => "the same canceled job (cancelling is idempotent)",
                        CancelRule::Started => "409 job_generation_already_started",
                        CancelRule::NotCancelable => "409 job_not_cancelable",
                    });
                self.sink.violate(at, Some(id), Rule::CancelAnswerBreaksRevision, format!("the job was \"{before}\" when the cancel was sent; the answer must be {want}, got {answer}"));
            }
        }
        if verdict == CancelVerdict::TooLate {
            // The 409 says generation started: a later "canceled" is a transition that never happens.
            if let Some(w) = self.jobs.get_mut(id) {
                if w.last == Some(Status::Queued) {
                    w.last = Some(Status::Processing);
                }
            }
        }
    }

    /// The log ended at `at`: jobs that never reached a terminal status are noted.
    pub fn handle_end(&mut self, at: usize) {
        for (id, w) in &self.jobs {
            if w.first_terminal.is_none() && !w.lost {
                self.sink.note(
                    at,
                    format!("job {id} did not reach a terminal status in this log"),
                );
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Transcript files (JSON Lines), for `longcall check` and the `checkTranscript` export

/// What kind of file was read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Format {
    /// An MCP wire transcript.
    Mcp,
    /// A job log.
    JobLog,
}

/// One broken rule in a file.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Finding {
    /// 1-based line in the file.
    pub line: usize,
    /// The rule code.
    pub rule: Rule,
    /// MUST or SHOULD.
    pub level: crate::violation::Level,
    /// The task or job id, when the rule is about one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub handle: Option<String>,
    /// What was seen, in plain words.
    pub detail: String,
}

/// Something worth knowing in a file that breaks no rule.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Note {
    /// 1-based line.
    pub line: usize,
    /// What happened.
    pub text: String,
}

/// What [`check_text`] found in one file.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    /// Transcript or job log.
    pub format: Format,
    /// The model the file was read as.
    pub model: Model,
    /// What the model rests on (a header, shapes, the caller's override, ...).
    pub revision_basis: &'static str,
    /// Handles (tasks or jobs) seen.
    pub handles: usize,
    /// Violations, in line order.
    pub findings: Vec<Finding>,
    /// Notes, in line order.
    pub notes: Vec<Note>,
}

impl Report {
    /// True when a MUST was broken (or any rule, with `strict`).
    #[must_use]
    pub fn fails(&self, strict: bool) -> bool {
        self.findings
            .iter()
            .any(|f| strict || f.level == crate::violation::Level::Must)
    }
}

fn unreadable_file(reason: String) -> Error {
    Error::Malformed {
        what: "transcript",
        reason,
    }
}

/// A line's direction and time, which every rule reads: a line without them cannot be placed, so
/// it is refused rather than skipped (a skipped line could hide a broken MUST).
fn envelope(line: usize, v: &Value) -> Result<(), Error> {
    if !matches!(v.get("dir").and_then(Value::as_str), Some("c2s" | "s2c")) {
        return Err(unreadable_file(format!(
            "line {line}: `dir` must be \"c2s\" (client to server) or \"s2c\""
        )));
    }
    if v.get("t_ms").and_then(Value::as_u64).is_none() {
        return Err(unreadable_file(format!(
            "line {line}: `t_ms` must be a whole number of milliseconds"
        )));
    }
    Ok(())
}

/// Reads a transcript or job log (JSON Lines, one object per line; the format is detected: lines
/// with `msg` are an MCP transcript, lines with `body` a job log) and observes it. `revision`
/// overrides the detected MCP revision.
///
/// The MCP transcript line is `{"seq", "t_ms", "dir": "c2s"|"s2c", "http"?, "msg"}` (a null `msg`
/// is an HTTP-only event, skipped; on client requests `http` carries `mcpMethod`, `mcpName`,
/// `mcpProtocolVersion`). The job log line is `{"t_ms", "dir", "http": {"method", "path",
/// "status", "retry_after_ms"? | "retry_after"?}, "body"}`.
///
/// Errors: a file that is not JSON Lines, is empty, has a line without its `dir` (`c2s` or
/// `s2c`) or `t_ms` (a whole number), or is neither format ([`Error::Malformed`] naming the line).
///
/// ```
/// use longcall::endpoint::observer::{check_text, Format};
/// let log = r#"{"t_ms":0,"dir":"c2s","http":{"method":"GET","path":"/jobs/j"},"body":null}
/// {"t_ms":5,"dir":"s2c","http":{"status":200},"body":{"id":"j","status":"processing"}}
/// {"t_ms":9,"dir":"s2c","http":{"status":200},"body":{"id":"j","status":"queued"}}"#;
/// let r = check_text(log, None).unwrap();
/// assert_eq!(r.format, Format::JobLog);
/// assert!(r.findings.is_empty()); // the third line answers nothing: a note
/// assert!(check_text("not json", None).is_err());
/// // A misspelt direction is refused, never skipped: the line might have broken a rule.
/// let typo = r#"{"t_ms":0,"dir":"c2S","http":{"method":"GET","path":"/jobs/j"},"body":null}"#;
/// assert_eq!(check_text(typo, None).unwrap_err().code(), "malformed");
/// ```
pub fn check_text(text: &str, revision: Option<Model>) -> Result<Report, Error> {
    let mut lines = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        if raw.trim().is_empty() {
            continue;
        }
        // The guarded reader: size, depth and string limits are checked before serde runs.
        match crate::wire::read_json(raw) {
            Ok(v @ Value::Object(_)) => {
                envelope(i + 1, &v)?;
                lines.push((i + 1, v));
            }
            Ok(_) => {
                return Err(unreadable_file(format!(
                    "line {}: not a JSON object (expected JSON Lines)",
                    i + 1
                )))
            }
            Err(e) => {
                // The reader's position is within the one line: said as its column.
                let said = e.to_string().replace(" at line 1 column ", " at column ");
                return Err(unreadable_file(format!(
                    "line {}: not JSON ({said}); expected JSON Lines",
                    i + 1
                )));
            }
        }
    }
    if lines.is_empty() {
        return Err(unreadable_file("no JSON Lines in the file".into()));
    }
    let is_job = lines.iter().any(|(_, v)| v.get("body").is_some());
    let is_mcp = lines.iter().any(|(_, v)| v.get("msg").is_some());
    if is_job && !is_mcp {
        Ok(check_job_log(&lines))
    } else if is_mcp {
        Ok(check_principals(&lines, revision))
    } else {
        Err(unreadable_file(
            "neither an MCP transcript (lines with `msg`) nor a job log (lines with `body`)".into(),
        ))
    }
}

/// Sorts events into findings and notes, in line order.
fn collect(events: impl Iterator<Item = Event>, notes: &mut Vec<Note>) -> Vec<Finding> {
    let mut findings = Vec::new();
    for e in events {
        match e {
            Event::Violation {
                at,
                handle,
                violation,
            } => findings.push(Finding {
                line: at,
                rule: violation.rule,
                level: violation.level,
                handle,
                detail: violation.detail,
            }),
            Event::Note { at, text } => notes.push(Note { line: at, text }),
        }
    }
    findings.sort_by_key(|f| f.line);
    notes.sort_by_key(|n| n.line);
    findings
}

fn str_at<'a>(v: &'a Value, pointer: &str) -> Option<&'a str> {
    v.pointer(pointer).and_then(Value::as_str)
}

/// One line of an MCP transcript, parsed: (line, time, direction, message, http).
type McpLine<'a> = (usize, u64, Direction, Message, Option<&'a Value>);

/// E-52: each principal of a transcript (`http.principal` on its requests) is judged as a client
/// of its own, since another principal's task is an unknown id to it; then the rules only a
/// prober can test ([`crate::probe_rules`], X-1...) run over the whole exchange.
fn check_principals(lines: &[(usize, Value)], revision: Option<Model>) -> Report {
    let mut views = by_principal(lines).into_iter();
    let first = views.next().unwrap_or_default();
    let mut report = check_transcript(&first, revision);
    for view in views {
        let other = check_transcript(&view, Some(report.model));
        report.handles = report.handles.max(other.handles);
        report.findings.extend(other.findings);
        report.notes.extend(other.notes);
    }
    with_probe_findings(report, crate::probe_rules::check(lines))
}

/// E-52: the lines each principal's client saw, one view per principal in order of first use
/// (the whole transcript when it has fewer than two). The first view also holds every line that
/// is not another principal's request or its answer. Anyone who judges a transcript as a client
/// (the checker, a test that drives the client path beside it) judges these views.
#[must_use]
pub fn by_principal(lines: &[(usize, Value)]) -> Vec<Vec<(usize, Value)>> {
    let all = principals(lines);
    let mut views = alloc::vec![per_principal(lines, &all, None)];
    views.extend(
        all.iter()
            .skip(1)
            .map(|p| per_principal(lines, &all, Some(p))),
    );
    views
}

/// The `http.principal` labels of a transcript's requests, in order of first use.
fn principals(lines: &[(usize, Value)]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (_, v) in lines {
        if let Some(p) = v.pointer("/http/principal").and_then(Value::as_str) {
            if !out.iter().any(|o| o == p) {
                out.push(p.into());
            }
        }
    }
    out
}

/// The lines one principal's client saw: its requests and their answers, and (for the first
/// principal, `None`) everything that is not another principal's request or its answer.
fn per_principal(
    lines: &[(usize, Value)],
    all: &[String],
    principal: Option<&str>,
) -> Vec<(usize, Value)> {
    if all.len() < 2 {
        return lines.to_vec();
    }
    let me = principal.or(all.first().map(String::as_str)).unwrap_or("");
    let first = principal.is_none();
    let mut mine = alloc::collections::BTreeSet::new();
    let mut theirs = alloc::collections::BTreeSet::new();
    let mut out = Vec::new();
    for (line, v) in lines {
        let id = v
            .pointer("/msg/id")
            .filter(|i| !i.is_null())
            .map(Value::to_string);
        let is_request = v.pointer("/msg/method").is_some();
        let keep = match (v.get("dir").and_then(Value::as_str), is_request, id) {
            (Some("c2s"), true, Some(id)) => {
                let who = str_at(v, "/http/principal").unwrap_or("");
                let ours = who == me || (first && who.is_empty());
                if ours {
                    mine.insert(id);
                } else {
                    theirs.insert(id);
                }
                ours
            }
            (Some("s2c"), false, Some(id)) => {
                mine.contains(&id) || (first && !theirs.contains(&id))
            }
            _ => first,
        };
        if keep {
            out.push((*line, v.clone()));
        }
    }
    out
}

fn check_transcript(lines: &[(usize, Value)], revision: Option<Model>) -> Report {
    let mut parsed: Vec<McpLine<'_>> = Vec::new();
    let mut notes = Vec::new();
    for (line, v) in lines {
        let Some(msg) = v.get("msg").filter(|m| !m.is_null()) else {
            continue;
        };
        let Some(dir) = v
            .get("dir")
            .and_then(Value::as_str)
            .and_then(Direction::parse)
        else {
            notes.push(Note {
                line: *line,
                text: "a message without dir \"c2s\" or \"s2c\" was skipped".into(),
            });
            continue;
        };
        match Message::from_value(msg.clone()) {
            Ok(m) => parsed.push((
                *line,
                v.get("t_ms").and_then(Value::as_u64).unwrap_or(0),
                dir,
                m,
                v.get("http"),
            )),
            Err(e) => notes.push(Note {
                line: *line,
                text: format!("not a JSON-RPC message ({}: {e}); skipped", e.code()),
            }),
        }
    }
    let (model, basis) =
        match revision {
            Some(m) => (m, "--revision"),
            None => detect_model(parsed.iter().map(|(_, _, _, m, http)| {
                (http.and_then(|h| str_at(h, "/mcpProtocolVersion")), m)
            })),
        };
    let mut o = McpObserver::new(model);
    for (line, t, dir, message, http) in &parsed {
        let headers = http
            .filter(|_| *dir == Direction::ClientToServer)
            .map(|h| Headers {
                mcp_method: str_at(h, "/mcpMethod"),
                mcp_name: str_at(h, "/mcpName"),
                protocol_version: str_at(h, "/mcpProtocolVersion"),
            });
        o.handle_message(*line, *t, *dir, message, headers.as_ref());
    }
    o.handle_end(lines.last().map_or(0, |(l, _)| *l));
    let findings = collect(core::iter::from_fn(|| o.poll_event()), &mut notes);
    Report {
        format: Format::Mcp,
        model: o.model(),
        revision_basis: basis,
        handles: o.handles(),
        findings,
        notes,
    }
}

/// E-52 for job logs: each principal's requests and their answers (paired in order, E-40) are
/// judged as a client of its own; then the rules only a prober can test ([`crate::probe_rules`],
/// X-7...) run over the whole log.
fn check_job_log(lines: &[(usize, Value)]) -> Report {
    let all = principals(lines);
    let report = if all.len() < 2 {
        observe_job_lines(lines)
    } else {
        // The principal of each answer is its request's.
        let mut open: VecDeque<&str> = VecDeque::new();
        let mut owner_of: Vec<&str> = Vec::with_capacity(lines.len());
        for (_, v) in lines {
            let who = match v.get("dir").and_then(Value::as_str) {
                Some("c2s") => {
                    let p = str_at(v, "/http/principal").unwrap_or("");
                    open.push_back(p);
                    p
                }
                Some("s2c") => open.pop_front().unwrap_or(""),
                _ => "",
            };
            owner_of.push(who);
        }
        let first = all.first().map_or("", String::as_str);
        let mut report = observe_job_lines(
            &lines
                .iter()
                .zip(&owner_of)
                .filter(|(_, w)| **w == first || w.is_empty())
                .map(|(l, _)| l.clone())
                .collect::<Vec<_>>(),
        );
        for p in all.iter().skip(1) {
            let other = observe_job_lines(
                &lines
                    .iter()
                    .zip(&owner_of)
                    .filter(|(_, w)| **w == p.as_str())
                    .map(|(l, _)| l.clone())
                    .collect::<Vec<_>>(),
            );
            report.handles = report.handles.max(other.handles);
            report.findings.extend(other.findings);
            report.notes.extend(other.notes);
        }
        report
    };
    with_probe_findings(report, crate::probe_rules::check_jobs(lines))
}

/// Adds the findings of the rules only a prober can test (run over the whole exchange) to a
/// report of the per-principal checks, in line order.
fn with_probe_findings(mut report: Report, found: Vec<crate::probe_rules::Finding>) -> Report {
    report.findings.extend(found.into_iter().map(|f| Finding {
        line: f.line,
        rule: f.violation.rule,
        level: f.violation.level,
        handle: f.task_id,
        detail: f.violation.detail,
    }));
    report.findings.sort_by_key(|f| f.line);
    report.notes.sort_by_key(|n| n.line);
    report
}

fn observe_job_lines(lines: &[(usize, Value)]) -> Report {
    let mut o = JobObserver::new();
    let null = Value::Null;
    for (line, v) in lines {
        let t = v.get("t_ms").and_then(Value::as_u64).unwrap_or(0);
        let http = v.get("http").unwrap_or(&null);
        let body = v.get("body").unwrap_or(&null);
        match v.get("dir").and_then(Value::as_str) {
            Some("c2s") => {
                // An Open API submit carries its key in the `Idempotency-Key` header, which the
                // log keeps as `http.idempotency_key`; the submit rules read it from the body.
                let keyed;
                let body = match (body.as_object(), http.get("idempotency_key")) {
                    (Some(o), Some(k)) => {
                        let mut o = o.clone();
                        o.insert("idempotency_key".into(), k.clone());
                        keyed = Value::Object(o);
                        &keyed
                    }
                    _ => body,
                };
                o.handle_request(
                    *line,
                    t,
                    JobRequest {
                        method: str_at(http, "/method").unwrap_or(""),
                        path: str_at(http, "/path").unwrap_or(""),
                        body,
                    },
                )
            }
            Some("s2c") => {
                let status = http
                    .get("status")
                    .and_then(Value::as_u64)
                    .map_or(200, |s| u16::try_from(s).unwrap_or(u16::MAX));
                let retry_text;
                let retry = match (http.get("retry_after_ms"), http.get("retry_after")) {
                    (Some(ms), _) => ms.as_u64().map(RetryAfter::Ms),
                    (None, Some(Value::String(s))) => Some(RetryAfter::Header(s)),
                    (None, Some(n @ Value::Number(_))) => {
                        retry_text = n.to_string();
                        Some(RetryAfter::Header(&retry_text))
                    }
                    _ => None,
                };
                o.handle_answer(*line, t, status, retry, body);
            }
            _ => {}
        }
    }
    o.handle_end(lines.last().map_or(0, |(l, _)| *l));
    let mut notes = Vec::new();
    let findings = collect(core::iter::from_fn(|| o.poll_event()), &mut notes);
    Report {
        format: Format::JobLog,
        model: Model::Job,
        revision_basis: "job log",
        handles: o.handles(),
        findings,
        notes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    /// Every violation the observer reports on `lines`, by line.
    fn violations(model: Model, lines: &[(Direction, u64, &str)]) -> Vec<(usize, Violation)> {
        let mut o = McpObserver::new(model);
        for (i, (dir, t, text)) in lines.iter().enumerate() {
            o.handle_message(
                i + 1,
                *t,
                *dir,
                &Message::parse(text.as_bytes()).unwrap(),
                None,
            );
        }
        o.handle_end(lines.len());
        core::iter::from_fn(|| o.poll_event())
            .filter_map(|e| match e {
                Event::Violation { at, violation, .. } => Some((at, violation)),
                Event::Note { .. } => None,
            })
            .collect()
    }

    fn run(model: Model, lines: &[(Direction, u64, &str)]) -> Vec<(usize, Rule)> {
        violations(model, lines)
            .into_iter()
            .map(|(at, v)| (at, v.rule))
            .collect()
    }

    const C: Direction = Direction::ClientToServer;
    const S: Direction = Direction::ServerToClient;
    const CAPS: &str = r#""_meta":{"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}"#;

    fn call26() -> String {
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"x","arguments":{{}},{CAPS}}}}}"#
        )
    }
    fn get26(id: u32) -> String {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tasks/get","params":{{"taskId":"T",{CAPS}}}}}"#
        )
    }
    const CREATED: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"task","taskId":"T","status":"working","createdAt":"2026-01-01T00:00:00Z","lastUpdatedAt":"2026-01-01T00:00:00Z","ttlMs":null,"pollIntervalMs":1000}}"#;
    fn working(id: u32) -> String {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"result":{{"resultType":"complete","taskId":"T","status":"working","createdAt":"2026-01-01T00:00:00Z","lastUpdatedAt":"2026-01-01T00:00:00Z","ttlMs":null,"pollIntervalMs":1000}}}}"#
        )
    }

    /// Rules E-44, P-14.

    #[test]
    fn the_first_get_after_create_confirms_and_the_next_fast_one_is_too_fast() {
        let (call, g2, g3) = (call26(), get26(2), get26(3));
        let (w2, w3) = (working(2), working(3));
        let got = run(
            Model::Task2026,
            &[
                (C, 0, &call),
                (S, 10, CREATED),
                (C, 20, &g2),
                (S, 30, &w2),
                (C, 40, &g3),
                (S, 50, &w3),
            ],
        );
        assert_eq!(got, vec![(5, Rule::PollTooFast)]);
    }

    /// Rules E-46, C-3: a 2026 cancel of a completed task answered with a task breaks the
    /// revision once, and the message names the ack it should have been, not 2025's -32602.
    #[test]
    fn a_2026_cancel_answered_with_a_task_is_told_the_ack_it_should_be() {
        let (call, g2) = (call26(), get26(2));
        let done = r#"{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","taskId":"T","status":"completed","createdAt":"2026-01-01T00:00:00Z","lastUpdatedAt":"2026-01-01T00:00:00Z","ttlMs":null,"result":{"content":[]}}}"#;
        let cancel = format!(
            r#"{{"jsonrpc":"2.0","id":3,"method":"tasks/cancel","params":{{"taskId":"T",{CAPS}}}}}"#
        );
        let answered = r#"{"jsonrpc":"2.0","id":3,"result":{"taskId":"T","status":"cancelled","createdAt":"2026-01-01T00:00:00Z","lastUpdatedAt":"2026-01-01T00:00:00Z","ttlMs":null}}"#;
        let lines = [
            (C, 0, call.as_str()),
            (S, 10, CREATED),
            (C, 1020, g2.as_str()),
            (S, 1030, done),
            (C, 1040, cancel.as_str()),
            (S, 1050, answered),
        ];
        let said: Vec<_> = violations(Model::Task2026, &lines)
            .into_iter()
            .filter(|(_, v)| v.rule == Rule::CancelAnswerBreaksRevision)
            .map(|(_, v)| v.detail)
            .collect();
        assert_eq!(said.len(), 1, "{said:?}");
        assert!(said[0].contains("expected: the empty ack"), "{said:?}");
        assert!(!said[0].contains("-32602"), "{said:?}");
    }

    /// Rules E-9, E-49.

    #[test]
    fn a_cancelled_notification_for_an_answered_request_is_flagged() {
        let (call, g2) = (call26(), get26(2));
        let w2 = working(2);
        let got = run(
            Model::Task2026,
            &[
                (C, 0, &call),
                (S, 10, CREATED),
                (C, 2000, &g2),
                (S, 2010, &w2),
                (
                    C,
                    2020,
                    r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}"#,
                ),
                (
                    C,
                    2030,
                    r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}"#,
                ),
            ],
        );
        assert_eq!(
            got,
            vec![
                (5, Rule::CancelNotInProgress),
                (6, Rule::CancelNotInProgress)
            ]
        );
        // In progress: fine.
        let got = run(
            Model::Task2026,
            &[
                (C, 0, &call),
                (
                    C,
                    5,
                    r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#,
                ),
            ],
        );
        assert_eq!(got, vec![]);
    }

    /// Rules E-48, E-50.

    #[test]
    fn an_mrtr_round_is_neither_a_result_nor_a_resubmission() {
        let call = call26();
        let cont = format!(
            r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"x","arguments":{{}},"inputResponses":{{"k":{{}}}},"requestState":"s",{CAPS}}}}}"#
        );
        let created = CREATED.replace("\"id\":1", "\"id\":2");
        let lines = [
            (C, call.as_str()),
            (
                S,
                r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"k":{"method":"elicitation/create"}},"requestState":"s"}}"#,
            ),
            (C, cont.as_str()),
            (S, created.as_str()),
        ];
        let mut o = McpObserver::new(Model::Task2026);
        for (i, (dir, text)) in lines.iter().enumerate() {
            o.handle_message(
                i + 1,
                0,
                *dir,
                &Message::parse(text.as_bytes()).unwrap(),
                None,
            );
        }
        let events: Vec<Event> = core::iter::from_fn(|| o.poll_event()).collect();
        assert!(
            events.iter().all(|e| matches!(e, Event::Note { .. })),
            "{events:?}"
        );
        assert!(events
            .iter()
            .any(|e| matches!(e, Event::Note { text, .. } if text.contains("MRTR"))));
        assert_eq!(o.handles(), 1);
    }

    /// Rules E-41.

    #[test]
    fn a_gate_probe_rejected_with_its_code_is_a_note_and_accepted_it_counts() {
        let bare = r#"{"jsonrpc":"2.0","id":5,"method":"tasks/get","params":{"taskId":"T"}}"#;
        let rejected = r#"{"jsonrpc":"2.0","id":5,"error":{"code":-32021,"message":"no"}}"#;
        assert_eq!(
            run(Model::Task2026, &[(C, 0, bare), (S, 1, rejected)]),
            vec![]
        );
        let accepted = working(5);
        assert_eq!(
            run(Model::Task2026, &[(C, 0, bare), (S, 1, &accepted)]),
            vec![(1, Rule::MissingCapability)]
        );
        assert_eq!(
            run(Model::Task2026, &[(C, 0, bare)]),
            vec![(1, Rule::MissingCapability)]
        );
    }

    /// Rules E-40, E-46.

    #[test]
    fn job_cancel_answers_follow_the_cancel_table() {
        let mut o = JobObserver::new();
        let null = Value::Null;
        let get = JobRequest {
            method: "GET",
            path: "/jobs/j",
            body: &null,
        };
        let cancel = JobRequest {
            method: "POST",
            path: "/jobs/j/cancel",
            body: &null,
        };
        o.handle_request(1, 0, get);
        o.handle_answer(
            2,
            1,
            200,
            None,
            &serde_json::json!({"id":"j","status":"processing"}),
        );
        o.handle_request(3, 2, cancel);
        o.handle_answer(
            4,
            3,
            200,
            None,
            &serde_json::json!({"id":"j","status":"canceled"}),
        );
        let rules: Vec<Rule> = core::iter::from_fn(|| o.poll_event())
            .filter_map(|e| match e {
                Event::Violation { violation, .. } => Some(violation.rule),
                Event::Note { .. } => None,
            })
            .collect();
        assert_eq!(
            rules,
            [Rule::CancelAnswerBreaksRevision, Rule::IllegalTransition]
        );
    }

    /// Rules E-43, C-18, X-10.

    #[test]
    fn a_409_started_then_canceled_is_an_illegal_transition() {
        let mut o = JobObserver::new();
        let null = Value::Null;
        o.handle_request(
            1,
            0,
            JobRequest {
                method: "GET",
                path: "/jobs/j",
                body: &null,
            },
        );
        o.handle_answer(
            2,
            1,
            200,
            None,
            &serde_json::json!({"id":"j","status":"queued"}),
        );
        o.handle_request(
            3,
            2,
            JobRequest {
                method: "POST",
                path: "/jobs/j/cancel",
                body: &null,
            },
        );
        o.handle_answer(4, 3, 409, None, &serde_json::json!({"error":{"code":"job_generation_already_started","message":"","details":{"cancelable":false}}}));
        o.handle_request(
            5,
            4,
            JobRequest {
                method: "GET",
                path: "/jobs/j",
                body: &null,
            },
        );
        o.handle_answer(
            6,
            5,
            200,
            None,
            &serde_json::json!({"id":"j","status":"canceled"}),
        );
        let got: Vec<(usize, Rule)> = core::iter::from_fn(|| o.poll_event())
            .filter_map(|e| match e {
                Event::Violation { at, violation, .. } => Some((at, violation.rule)),
                Event::Note { .. } => None,
            })
            .collect();
        assert_eq!(got, [(6, Rule::IllegalTransition)]);
    }

    /// Rule O-6: a 404 without the API's `not_found` (a proxy's page) does not make the job
    /// lost; one with it does.
    #[test]
    fn a_job_log_reads_only_the_apis_404_as_lost() {
        let log = |answer: &str| {
            [
                r#"{"t_ms":0,"dir":"c2s","http":{"method":"POST","path":"/v1/image-router/generate","idempotency_key":"k"},"body":{"model":"m"}}"#,
                r#"{"t_ms":1,"dir":"s2c","http":{"status":200},"body":{"data":{"request_id":"J","sume_status":"queued"}}}"#,
                r#"{"t_ms":2,"dir":"c2s","http":{"method":"GET","path":"/v1/jobs/J/status"},"body":null}"#,
                answer,
            ]
            .join("\n")
        };
        let notes = |answer: &str| -> Vec<String> {
            let r = check_text(&log(answer), None).unwrap();
            r.notes.into_iter().map(|n| n.text).collect()
        };
        let page =
            r#"{"t_ms":3,"dir":"s2c","http":{"status":404},"body":"<html>404 Not Found</html>"}"#;
        let said = notes(page);
        assert!(
            !said.iter().any(|n| n.contains("outcome: lost")),
            "{said:?}"
        );
        assert!(
            said.iter()
                .any(|n| n.contains("did not reach a terminal status")),
            "{said:?}"
        );
        let api = r#"{"t_ms":3,"dir":"s2c","http":{"status":404},"body":{"error":{"code":"not_found","message":"job not found"}}}"#;
        let said = notes(api);
        assert!(said.iter().any(|n| n.contains("outcome: lost")), "{said:?}");
        assert!(
            !said.iter().any(|n| n.contains("did not reach")),
            "{said:?}"
        );
    }

    /// Rules E-52, X-9: a second key's requests for the first key's job, answered like an
    /// unknown id, are no finding, and do not make the owner's job lost.
    #[test]
    fn a_job_log_with_two_keys_judges_each_as_its_own_client() {
        let lines = [
            r#"{"t_ms":0,"dir":"c2s","http":{"method":"POST","path":"/v1/image-router/generate","principal":"a","idempotency_key":"k"},"body":{"model":"m"}}"#,
            r#"{"t_ms":1,"dir":"s2c","http":{"status":200},"body":{"data":{"request_id":"J","sume_status":"queued"}}}"#,
            r#"{"t_ms":2,"dir":"c2s","http":{"method":"GET","path":"/v1/jobs/U/status","principal":"b"},"body":null}"#,
            r#"{"t_ms":3,"dir":"s2c","http":{"status":404},"body":{"error":{"code":"not_found","message":"job not found"}}}"#,
            r#"{"t_ms":4,"dir":"c2s","http":{"method":"GET","path":"/v1/jobs/J/status","principal":"b"},"body":null}"#,
            r#"{"t_ms":5,"dir":"s2c","http":{"status":404},"body":{"error":{"code":"not_found","message":"job not found"}}}"#,
            r#"{"t_ms":6,"dir":"c2s","http":{"method":"GET","path":"/v1/jobs/J/status","principal":"a"},"body":null}"#,
            r#"{"t_ms":7,"dir":"s2c","http":{"status":200},"body":{"data":{"sume_status":"completed"}}}"#,
        ];
        let r = check_text(&lines.join("\n"), None).unwrap();
        assert_eq!(r.findings, vec![]);
        let mut lines = lines;
        lines[5] = r#"{"t_ms":5,"dir":"s2c","http":{"status":403},"body":{"error":{"code":"forbidden","message":"not yours"}}}"#;
        let leaked = lines.join("\n");
        let r = check_text(&leaked, None).unwrap();
        let rules: Vec<Rule> = r.findings.iter().map(|f| f.rule).collect();
        assert_eq!(rules, [Rule::ForeignIdDistinguishable]);
    }
}
