//! Rules only a prober can test: properties of a server that show over many exchanges, or only
//! when a client deliberately tries something (polls a terminal task again and again, asks for
//! another principal's task, cancels at odd moments). Each is a pure function over a recorded
//! MCP transcript (the JSON Lines format of `tests/traces`), so a finding reproduces from the file
//! alone: `longcall check` runs them on every transcript and `longcall probe` judges its runs with
//! exactly the same code.
//!
//! | id | rule | level | where the verdict lives |
//! |---|---|---|---|
//! | X-1 | a task answers `tasks/get` from its creator until it settles or its TTL runs out | MUST | [`created_task_resolves`] ([`Rule::CreatedTaskNotFound`]) |
//! | X-2 | a terminal status is absorbing, however often the task is polled | MUST | [`crate::lifecycle::observe`] ([`Rule::TerminalConflict`]), run on every status seen |
//! | X-3 | `cancelled` only after a `tasks/cancel`, or with a `statusMessage` giving the server's reason | SHOULD | [`cancelled_only_when_asked`] ([`Rule::CancelledUnasked`]) |
//! | X-4 | another principal's task id is answered exactly like an id never issued | MUST | [`foreign_like_unknown`] ([`Rule::ForeignIdDistinguishable`]) |
//! | X-5 | a poll that waited the server's own interval is not refused as too fast | SHOULD | [`floor_is_honoured`] ([`Rule::PollRefusedAtFloor`]) |
//! | X-6 | cancelling a finished task is idempotent (2026: the same empty ack; jobs: the same canceled job) | SHOULD / MUST | [`crate::cancel::classify_answer`] via `longcall check` ([`Rule::CancelTerminalNotAcked`], [`Rule::CancelAnswerBreaksRevision`]) |
//!
//! The job rules read a job log (the format `longcall check` reads, paired as E-40 pairs it) in
//! either dialect (the Open API and the MCP job tools over HTTP, D-2), with X-2 and X-6 above
//! applying to jobs as well:
//!
//! | id | rule | level | where the verdict lives |
//! |---|---|---|---|
//! | X-7 | a job answers its own key's status, result and cancel requests from the submit on, until it is seen settled | MUST | [`created_job_resolves`] ([`Rule::CreatedJobNotFound`]) |
//! | X-8 | a submit repeating an `Idempotency-Key` replays the job the key made first | MUST | [`key_replays_the_job`] ([`Rule::IdempotencyKeyNotReplayed`]) |
//! | X-9 | another key's job id is answered exactly like an id never issued (status, code, message) | MUST | [`foreign_job_like_unknown`] ([`Rule::ForeignIdDistinguishable`]) |
//! | X-10 | a job whose cancel was refused as started (409 `job_generation_already_started`) runs on and is never reported `canceled` | MUST | the job observer's cancel reading ([`crate::endpoint::observer::JobObserver`], [`Rule::IllegalTransition`]) |
//! | X-11 | a job canceled while queued is refunded (the Open API answer never says `refunded: false`) | MUST | [`queued_cancel_refunds`] ([`Rule::CancelNotRefunded`]) |
//! | X-12 | a 429 answer (`queue_full`, a rate limit) carries `Retry-After` | SHOULD | [`too_many_says_when`] ([`Rule::RetryAfterMissing`]) |
//! | X-13 | a status request that waited the `Retry-After` of the previous answer about the job is not refused with 429 again | SHOULD | [`retry_after_is_honoured`] ([`Rule::PollRefusedAtFloor`]) |
//! | X-14 | a `jobs_wait` answered `timed_out: false` meets its `wait_for` and lists exactly the ids asked | MUST | [`wait_meets_its_condition`] ([`Rule::WaitConditionBroken`]) |
//!
//! A job log line's principal is its `c2s` line's `http.principal`, as for transcripts.
//!
//! The principal of a request is the `http.principal` label of its `c2s` line (a name the
//! recorder chose for the credentials it sent, never the credentials); a line without one belongs
//! to the single anonymous principal, so transcripts with one principal never raise X-4.
//!
//! ```
//! use longcall::probe_rules;
//! use serde_json::json;
//!
//! let lines = vec![
//!     (1, json!({"t_ms": 0, "dir": "c2s", "msg": {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
//!         "params": {"name": "slow"}}})),
//!     (2, json!({"t_ms": 5, "dir": "s2c", "msg": {"jsonrpc": "2.0", "id": 1, "result": {
//!         "resultType": "task", "taskId": "t1", "status": "working", "ttlMs": 60000}}})),
//!     (3, json!({"t_ms": 300, "dir": "c2s", "msg": {"jsonrpc": "2.0", "id": 2, "method": "tasks/get",
//!         "params": {"taskId": "t1"}}})),
//!     (4, json!({"t_ms": 301, "dir": "s2c", "msg": {"jsonrpc": "2.0", "id": 2,
//!         "error": {"code": -32602, "message": "unknown task"}}})),
//! ];
//! let found = probe_rules::check(&lines);
//! assert_eq!(found.len(), 1);
//! assert_eq!(found[0].violation.rule.code(), "created_task_not_found");
//! ```

use alloc::collections::{BTreeMap, VecDeque};
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

use serde_json::Value;

use crate::endpoint::observer::JobCall;
use crate::error::Quoted;
use crate::status::Status;
use crate::view::JobView;
use crate::violation::{Rule, Violation};

/// The JSON-RPC code both revisions use for an unknown or expired task.
const UNKNOWN_TASK: i64 = -32602;

/// One broken rule on a transcript line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// The 1-based line of the answer (or status) that shows it.
    pub line: usize,
    /// The task the rule is about.
    pub task_id: Option<String>,
    /// The rule and what was seen.
    pub violation: Violation,
}

/// A client request and the server's answer to it.
#[derive(Clone, Debug, Default)]
pub struct Exchange {
    /// Line of the request.
    pub request_line: usize,
    /// Line of the answer (0: never answered).
    pub answer_line: usize,
    /// `t_ms` of the request.
    pub sent_at: u64,
    /// `t_ms` of the answer.
    pub answered_at: u64,
    /// The JSON-RPC method.
    pub method: String,
    /// `params.taskId`, when there is one.
    pub task_id: Option<String>,
    /// The principal label (`""`: the anonymous principal).
    pub principal: String,
    /// The HTTP status of the answer, when recorded.
    pub http_status: Option<u64>,
    /// The `result` member of the answer.
    pub result: Option<Value>,
    /// The `error.code` of the answer.
    pub error_code: Option<i64>,
}

/// A status the server reported for a task.
#[derive(Clone, Debug)]
struct Seen {
    line: usize,
    task_id: String,
    status: String,
    status_message: bool,
    interval_ms: Option<u64>,
}

/// A task handle a `tools/call` returned.
#[derive(Clone, Debug)]
struct Created {
    line: usize,
    at: u64,
    principal: String,
    /// `None`: unlimited.
    ttl_ms: Option<u64>,
}

/// Everything the rules read, built once from the transcript lines.
#[derive(Debug, Default)]
pub struct Facts {
    /// Request/answer pairs, in request order.
    pub exchanges: Vec<Exchange>,
    seen: Vec<Seen>,
    created: BTreeMap<String, Created>,
}

fn task_of(v: &Value) -> Option<&Value> {
    // 2025 wraps the task (`{task: {...}}`); 2026 is flat.
    match v.get("task") {
        Some(t) if t.is_object() => Some(t),
        _ => Some(v),
    }
}

fn seen_from(line: usize, task: &Value) -> Option<Seen> {
    Some(Seen {
        line,
        task_id: task.get("taskId")?.as_str()?.to_string(),
        status: task.get("status")?.as_str()?.to_string(),
        status_message: task
            .get("statusMessage")
            .and_then(Value::as_str)
            .is_some_and(|s| !s.is_empty()),
        interval_ms: task
            .get("pollIntervalMs")
            .or_else(|| task.get("pollInterval"))
            .and_then(Value::as_u64),
    })
}

impl Facts {
    /// Reads transcript lines (`(line number, JSON object)`), pairing each client request with its
    /// answer by JSON-RPC id.
    pub fn read(lines: &[(usize, Value)]) -> Facts {
        let mut facts = Facts::default();
        let mut open: BTreeMap<String, usize> = BTreeMap::new();
        for (line, v) in lines {
            let Some(msg) = v.get("msg").filter(|m| m.is_object()) else {
                continue;
            };
            let dir = v.get("dir").and_then(Value::as_str).unwrap_or("");
            let at = v.get("t_ms").and_then(Value::as_u64).unwrap_or(0);
            let method = msg.get("method").and_then(Value::as_str);
            let id = msg.get("id").filter(|i| !i.is_null()).map(Value::to_string);
            match (dir, method, id) {
                ("c2s", Some(m), Some(id)) => {
                    let params = msg.get("params");
                    open.insert(id, facts.exchanges.len());
                    facts.exchanges.push(Exchange {
                        request_line: *line,
                        sent_at: at,
                        method: m.to_string(),
                        task_id: params
                            .and_then(|p| p.get("taskId"))
                            .and_then(Value::as_str)
                            .map(String::from),
                        principal: v
                            .pointer("/http/principal")
                            .and_then(Value::as_str)
                            .unwrap_or("")
                            .to_string(),
                        ..Exchange::default()
                    });
                }
                ("s2c", None, Some(id)) => {
                    let Some(ex) = open.remove(&id).and_then(|i| facts.exchanges.get_mut(i)) else {
                        continue;
                    };
                    ex.answer_line = *line;
                    ex.answered_at = at;
                    ex.http_status = v.pointer("/http/status").and_then(Value::as_u64);
                    ex.result = msg.get("result").cloned();
                    ex.error_code = msg.pointer("/error/code").and_then(Value::as_i64);
                    let Some(r) = ex.result.as_ref() else {
                        continue;
                    };
                    match ex.method.as_str() {
                        "tools/call" => {
                            let flat = r.get("resultType").and_then(Value::as_str) == Some("task");
                            let task = if flat { Some(r) } else { r.get("task") };
                            let Some(s) = task.and_then(|t| seen_from(*line, t)) else {
                                continue;
                            };
                            let ttl = task.and_then(|t| t.get("ttlMs").or_else(|| t.get("ttl")));
                            facts.created.insert(
                                s.task_id.clone(),
                                Created {
                                    line: *line,
                                    at,
                                    principal: ex.principal.clone(),
                                    ttl_ms: ttl.and_then(Value::as_u64),
                                },
                            );
                            facts.seen.push(s);
                        }
                        "tasks/get" | "tasks/cancel" => {
                            if let Some(s) = task_of(r).and_then(|t| seen_from(*line, t)) {
                                facts.seen.push(s);
                            }
                        }
                        _ => {}
                    }
                }
                ("s2c", Some(m), None) if m.starts_with("notifications/tasks") => {
                    let p = msg.get("params").and_then(task_of);
                    if let Some(s) = p.and_then(|t| seen_from(*line, t)) {
                        facts.seen.push(s);
                    }
                }
                _ => {}
            }
        }
        facts
    }

    fn terminal_before(&self, task_id: &str, line: usize) -> bool {
        self.seen.iter().any(|s| {
            s.task_id == task_id
                && s.line < line
                && matches!(s.status.as_str(), "completed" | "failed" | "cancelled")
        })
    }

    fn owner(&self, task_id: &str) -> Option<&str> {
        self.created.get(task_id).map(|c| c.principal.as_str())
    }
}

fn finding(line: usize, task_id: &str, rule: Rule, detail: String) -> Finding {
    Finding {
        line,
        task_id: Some(task_id.to_string()),
        violation: Violation::new(rule, detail),
    }
}

fn answer_words(ex: &Exchange) -> String {
    shape_words(ex.http_status, ex.error_code, ex.result.is_some())
}

/// An answer as a finding says it: "HTTP 200 with a success answer", "error -32602".
fn shape_words(http_status: Option<u64>, error_code: Option<i64>, result: bool) -> String {
    let http = http_status
        .map(|s| format!("HTTP {s} with "))
        .unwrap_or_default();
    match (error_code, result) {
        (Some(c), _) => format!("{http}error {c}"),
        (None, true) => format!("{http}a success answer"),
        (None, false) => format!("{http}no JSON-RPC answer"),
    }
}

/// X-1: a `tasks/get` from the task's creator, before the task was seen settled and before its
/// TTL ran out, must not be answered "unknown task" (`-32602` or HTTP 404). A server whose
/// `tools/call` answer is a handle must already know the task (no eventual consistency).
#[must_use]
pub fn created_task_resolves(facts: &Facts) -> Vec<Finding> {
    let mut out = Vec::new();
    for ex in &facts.exchanges {
        let (Some(tid), true) = (ex.task_id.as_deref(), ex.method == "tasks/get") else {
            continue;
        };
        let Some(c) = facts.created.get(tid) else {
            continue;
        };
        let not_found = ex.error_code == Some(UNKNOWN_TASK) || ex.http_status == Some(404);
        let live = c
            .ttl_ms
            .is_none_or(|ttl| ex.sent_at < c.at.saturating_add(ttl));
        if not_found
            && ex.answer_line > 0
            && c.principal == ex.principal
            && ex.request_line > c.line
            && live
            && !facts.terminal_before(tid, ex.request_line)
        {
            out.push(finding(
                ex.answer_line,
                tid,
                Rule::CreatedTaskNotFound,
                format!(
                    "tasks/get {} ms after the task was created (line {}) was answered {}: the task was not settled and its TTL had not run out",
                    ex.sent_at.saturating_sub(c.at),
                    c.line,
                    answer_words(ex)
                ),
            ));
        }
    }
    out
}

/// X-3: a task seen `cancelled` must have had a `tasks/cancel` sent for it before, or carry a
/// `statusMessage` that gives the server's own reason. Reported once per task.
#[must_use]
pub fn cancelled_only_when_asked(facts: &Facts) -> Vec<Finding> {
    let mut out: Vec<Finding> = Vec::new();
    for s in facts.seen.iter().filter(|s| s.status == "cancelled") {
        let asked = facts.exchanges.iter().any(|ex| {
            ex.method == "tasks/cancel"
                && ex.task_id.as_deref() == Some(s.task_id.as_str())
                && ex.request_line < s.line
        });
        let reported = out
            .iter()
            .any(|f| f.task_id.as_deref() == Some(s.task_id.as_str()));
        if !asked && !s.status_message && !reported {
            out.push(finding(
                s.line,
                &s.task_id,
                Rule::CancelledUnasked,
                "the task was reported \"cancelled\" but no tasks/cancel was sent for it, and no statusMessage says why the server cancelled it".into(),
            ));
        }
    }
    out
}

/// X-4: a `tasks/*` request naming a task created by another principal must get the answer an id
/// that was never issued gets (the same HTTP status and error code as the unknown-id requests of
/// the same method in the transcript, or `-32602` when there are none); anything else, a success
/// above all, tells the caller that the task exists.
#[must_use]
pub fn foreign_like_unknown(facts: &Facts) -> Vec<Finding> {
    type Shape = (Option<u64>, Option<i64>, bool);
    let shape = |ex: &Exchange| -> Shape { (ex.http_status, ex.error_code, ex.result.is_some()) };
    let tasks_method = |ex: &Exchange| ex.method.starts_with("tasks/") && ex.answer_line > 0;
    let mut unknown: BTreeMap<&str, Vec<Shape>> = BTreeMap::new();
    for ex in facts.exchanges.iter().filter(|ex| tasks_method(ex)) {
        if let Some(tid) = ex.task_id.as_deref() {
            if !facts.created.contains_key(tid) {
                unknown
                    .entry(ex.method.as_str())
                    .or_default()
                    .push(shape(ex));
            }
        }
    }
    let mut out = Vec::new();
    for ex in facts.exchanges.iter().filter(|ex| tasks_method(ex)) {
        let Some(tid) = ex.task_id.as_deref() else {
            continue;
        };
        match facts.owner(tid) {
            Some(owner) if owner != ex.principal => {}
            _ => continue,
        }
        let like_unknown = match unknown.get(ex.method.as_str()) {
            Some(shapes) => shapes.contains(&shape(ex)),
            None => ex.error_code == Some(UNKNOWN_TASK),
        };
        if !like_unknown {
            let reference = match unknown.get(ex.method.as_str()).and_then(|s| s.first()) {
                Some(&(h, c, ok)) => shape_words(h, c, ok),
                None => format!("error {UNKNOWN_TASK}"),
            };
            out.push(finding(
                ex.answer_line,
                tid,
                Rule::ForeignIdDistinguishable,
                format!(
                    "{} for another principal's task was answered {}, but an id never issued gets {}: the answer tells the caller the task exists",
                    ex.method,
                    answer_words(ex),
                    reference
                ),
            ));
        }
    }
    out
}

/// X-5: a `tasks/get` sent no sooner than the interval the server last asked for (counted from
/// the previous answer about that task) must not be refused as too fast (HTTP 429).
#[must_use]
pub fn floor_is_honoured(facts: &Facts) -> Vec<Finding> {
    let mut out = Vec::new();
    for ex in &facts.exchanges {
        let (Some(tid), true) = (ex.task_id.as_deref(), ex.method == "tasks/get") else {
            continue;
        };
        if ex.http_status != Some(429) {
            continue;
        }
        let interval = facts
            .seen
            .iter()
            .filter(|s| s.task_id == tid && s.line < ex.request_line)
            .filter_map(|s| s.interval_ms)
            .next_back();
        let previous = facts
            .exchanges
            .iter()
            .filter(|p| {
                p.task_id.as_deref() == Some(tid)
                    && p.answer_line > 0
                    && p.answer_line < ex.request_line
            })
            .map(|p| p.answered_at)
            .chain(
                facts
                    .created
                    .get(tid)
                    .filter(|c| c.line < ex.request_line)
                    .map(|c| c.at),
            )
            .max();
        let (Some(iv), Some(prev)) = (interval, previous) else {
            continue;
        };
        let gap = ex.sent_at.saturating_sub(prev);
        if gap >= iv {
            out.push(finding(
                ex.answer_line,
                tid,
                Rule::PollRefusedAtFloor,
                format!(
                    "tasks/get, sent {gap} ms after the previous answer, was refused with HTTP 429, though the server's own interval is {iv} ms"
                ),
            ));
        }
    }
    out
}

/// Every rule of this module on one transcript, in line order.
#[must_use]
pub fn check(lines: &[(usize, Value)]) -> Vec<Finding> {
    let facts = Facts::read(lines);
    let mut out = created_task_resolves(&facts);
    out.extend(cancelled_only_when_asked(&facts));
    out.extend(foreign_like_unknown(&facts));
    out.extend(floor_is_honoured(&facts));
    out.sort_by_key(|f| f.line);
    out
}

// ---------------------------------------------------------------------------------------------
// Job logs

/// A job request and its answer, paired as the observer pairs them (E-40: an answer belongs to
/// the oldest request not yet answered; HTTP status 0 is no answer).
#[derive(Clone, Debug, Default)]
pub struct JobExchange {
    /// Line of the request.
    pub request_line: usize,
    /// Line of the answer (0: never answered).
    pub answer_line: usize,
    /// `t_ms` of the request.
    pub sent_at: u64,
    /// `t_ms` of the answer.
    pub answered_at: u64,
    /// The HTTP method.
    pub method: String,
    /// The path.
    pub path: String,
    /// The principal label (`""`: the anonymous principal).
    pub principal: String,
    /// The submit's idempotency key (the `Idempotency-Key` header as logged, or the body's).
    pub idempotency_key: Option<String>,
    /// The request body.
    pub request: Value,
    /// The HTTP status of the answer (`None`: no answer arrived).
    pub status: Option<u16>,
    /// Whether the answer carried `Retry-After`.
    pub retry_after: bool,
    /// Its `Retry-After`, in ms, when readable.
    pub retry_after_ms: Option<u64>,
    /// The answer body.
    pub body: Value,
}

impl JobExchange {
    fn call(&self) -> JobCall {
        JobCall::of(&self.method, &self.path)
    }

    /// The route, for comparing answers: the kind of request and its dialect.
    fn route(&self) -> Option<&'static str> {
        match self.call() {
            JobCall::Get { open_api: true, .. } => Some("GET /v1/jobs/{id}/status"),
            JobCall::Get { .. } => Some("GET /jobs/{id}"),
            JobCall::Cancel { open_api: true, .. } => Some("POST /v1/jobs/{id}/cancel"),
            JobCall::Cancel { .. } => Some("POST /jobs/{id}/cancel"),
            JobCall::Result(_) => Some("GET /v1/jobs/{id}/result"),
            _ => None,
        }
    }

    fn error_text(&self, pointer: &str) -> String {
        self.body
            .pointer(pointer)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    }

    fn ok(&self) -> bool {
        self.status.is_some_and(|s| (200..300).contains(&s))
    }
}

/// A job status seen in an answer.
#[derive(Clone, Debug)]
struct JobSeen {
    line: usize,
    id: String,
    status: Status,
}

/// Everything the job rules read, built once from the job log lines.
#[derive(Debug, Default)]
pub struct JobFacts {
    /// Request/answer pairs, in request order.
    pub exchanges: Vec<JobExchange>,
    seen: Vec<JobSeen>,
    /// Job id → (answer line of its submit, submitting principal).
    created: BTreeMap<String, (usize, String)>,
}

/// The jobs an answer shows, read by the same codecs the observer uses (both dialects, D-2).
fn jobs_in(ex: &JobExchange) -> Vec<JobView> {
    use crate::wire::{sume, sume_open};
    if !ex.ok() {
        return Vec::new();
    }
    let body = &ex.body;
    let read = match ex.call() {
        JobCall::Submit { open_api: true } => sume_open::read_submit(body).map(|j| vec![j]),
        JobCall::Submit { open_api: false } => sume::read_create(body).map(|c| c.jobs),
        JobCall::Get { id, open_api: true } => sume_open::read_status(&id, body).map(|j| vec![j]),
        JobCall::Cancel { id, open_api: true } => {
            sume_open::cancel_answer(200, Some(body)).map(|a| match a {
                crate::cancel::CancelAnswer::Job { status } => vec![JobView {
                    id,
                    status: status.into(),
                    result: None,
                    error: None,
                }],
                _ => Vec::new(),
            })
        }
        JobCall::Get { .. } | JobCall::Cancel { .. } => {
            sume::read_job(body.get("job").unwrap_or(body)).map(|j| vec![j])
        }
        JobCall::Wait => sume::read_wait(body).map(|w| w.jobs),
        JobCall::Result(_) | JobCall::Other => Ok(Vec::new()),
    };
    read.unwrap_or_default()
}

impl JobFacts {
    /// Reads job log lines (`(line number, JSON object)`), pairing each answer with the oldest
    /// request not yet answered.
    pub fn read(lines: &[(usize, Value)]) -> JobFacts {
        let mut facts = JobFacts::default();
        let mut open: VecDeque<usize> = VecDeque::new();
        for (line, v) in lines {
            let at = v.get("t_ms").and_then(Value::as_u64).unwrap_or(0);
            let http = v.get("http");
            let text = |p: &str| {
                http.and_then(|h| h.get(p))
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string()
            };
            let body = v.get("body").cloned().unwrap_or(Value::Null);
            match v.get("dir").and_then(Value::as_str) {
                Some("c2s") => {
                    let key = http
                        .and_then(|h| h.get("idempotency_key"))
                        .or_else(|| body.get("idempotency_key"))
                        .and_then(Value::as_str)
                        .map(String::from);
                    open.push_back(facts.exchanges.len());
                    facts.exchanges.push(JobExchange {
                        request_line: *line,
                        sent_at: at,
                        method: text("method"),
                        path: text("path"),
                        principal: text("principal"),
                        idempotency_key: key,
                        request: body,
                        ..JobExchange::default()
                    });
                }
                Some("s2c") => {
                    let Some(ex) = open.pop_front().and_then(|i| facts.exchanges.get_mut(i)) else {
                        continue;
                    };
                    ex.answer_line = *line;
                    ex.answered_at = at;
                    let status = http
                        .and_then(|h| h.get("status"))
                        .and_then(Value::as_u64)
                        .map_or(200, |s| u16::try_from(s).unwrap_or(u16::MAX));
                    ex.status = (status != 0).then_some(status);
                    let ms = http.and_then(|h| h.get("retry_after_ms"));
                    let header = http.and_then(|h| h.get("retry_after"));
                    ex.retry_after = ms.or(header).is_some_and(|r| !r.is_null());
                    ex.retry_after_ms = match (ms, header) {
                        (Some(ms), _) => ms.as_u64(),
                        (None, Some(Value::String(h))) => {
                            crate::time::parse_retry_after_ms(h, at).ok()
                        }
                        (None, Some(Value::Number(n))) => {
                            n.as_u64().map(|s| s.saturating_mul(1000))
                        }
                        _ => None,
                    };
                    ex.body = body;
                    let submit = matches!(ex.call(), JobCall::Submit { .. });
                    for job in jobs_in(ex) {
                        if submit {
                            facts
                                .created
                                .entry(job.id.clone())
                                .or_insert((*line, ex.principal.clone()));
                        }
                        facts.seen.push(JobSeen {
                            line: *line,
                            id: job.id,
                            status: job.status,
                        });
                    }
                }
                _ => {}
            }
        }
        facts
    }

    fn last_status_before(&self, id: &str, line: usize) -> Option<Status> {
        self.seen
            .iter()
            .filter(|s| s.id == id && s.line < line)
            .map(|s| s.status)
            .next_back()
    }

    fn terminal_before(&self, id: &str, line: usize) -> bool {
        self.seen
            .iter()
            .any(|s| s.id == id && s.line < line && s.status.is_terminal())
    }
}

/// X-7: a status, result or cancel request from the key that submitted the job, sent after the
/// submit was answered and before the job was seen settled, must not be answered 404: a server
/// that hands out a job id must already know the job.
#[must_use]
pub fn created_job_resolves(facts: &JobFacts) -> Vec<Finding> {
    let mut out = Vec::new();
    for ex in &facts.exchanges {
        let call = ex.call();
        let Some(id) = call.job() else {
            continue;
        };
        let Some((line, owner)) = facts.created.get(id) else {
            continue;
        };
        if ex.status == Some(404)
            && *owner == ex.principal
            && ex.request_line > *line
            && !facts.terminal_before(id, ex.request_line)
        {
            out.push(finding(
                ex.answer_line,
                id,
                Rule::CreatedJobNotFound,
                format!(
                    "{} {} {} ms after the submit was answered (line {line}) was answered HTTP 404: the job was not seen settled",
                    ex.method,
                    ex.path,
                    ex.sent_at.saturating_sub(
                        facts
                            .exchanges
                            .iter()
                            .find(|e| e.answer_line == *line)
                            .map_or(0, |e| e.answered_at)
                    )
                ),
            ));
        }
    }
    out
}

/// X-8: a submit that repeats an `Idempotency-Key` its principal already used must replay the
/// job the key made first: a success naming another job means the key was not honoured.
#[must_use]
pub fn key_replays_the_job(facts: &JobFacts) -> Vec<Finding> {
    let mut first: BTreeMap<(String, String), (String, usize)> = BTreeMap::new();
    let mut out = Vec::new();
    for ex in &facts.exchanges {
        let (JobCall::Submit { .. }, Some(key)) = (ex.call(), ex.idempotency_key.as_ref()) else {
            continue;
        };
        let Some(job) = jobs_in(ex).into_iter().next() else {
            continue;
        };
        match first.get(&(ex.principal.clone(), key.clone())) {
            Some((id, line)) if *id != job.id => out.push(finding(
                ex.answer_line,
                id,
                Rule::IdempotencyKeyNotReplayed,
                format!(
                    "the submit repeated Idempotency-Key {} and got job {}, but the key made job {id} (line {line}): one intent, two jobs",
                    Quoted(key),
                    Quoted(&job.id)
                ),
            )),
            Some(_) => {}
            None => {
                first.insert(
                    (ex.principal.clone(), key.clone()),
                    (job.id, ex.answer_line),
                );
            }
        }
    }
    out
}

/// X-9: a request naming another principal's job must get the answer an id that was never
/// issued gets on the same route: the same HTTP status, error code and message (the id itself
/// masked). With no unknown-id request on that route in the log, a 404 is expected. A request
/// with no key is nobody's: it is refused before any job is looked up (a 401 for every id), so
/// it is neither compared nor a reference.
pub fn foreign_job_like_unknown(facts: &JobFacts) -> Vec<Finding> {
    type Shape = (Option<u16>, String, String);
    let shape = |ex: &JobExchange, id: &str| -> Shape {
        (
            ex.status,
            ex.error_text("/error/code"),
            ex.error_text("/error/message").replace(id, "{id}"),
        )
    };
    let keyed = facts
        .exchanges
        .iter()
        .filter(|e| e.answer_line > 0 && !e.principal.is_empty());
    let mut unknown: BTreeMap<&str, Vec<Shape>> = BTreeMap::new();
    for ex in keyed.clone() {
        let call = ex.call();
        if let (Some(route), Some(id)) = (ex.route(), call.job()) {
            if !facts.created.contains_key(id) {
                unknown.entry(route).or_default().push(shape(ex, id));
            }
        }
    }
    let mut out = Vec::new();
    for ex in keyed {
        let call = ex.call();
        let (Some(route), Some(id)) = (ex.route(), call.job()) else {
            continue;
        };
        match facts.created.get(id) {
            Some((_, owner)) if *owner != ex.principal => {}
            _ => continue,
        }
        let got = shape(ex, id);
        let (like, reference) = match unknown.get(route) {
            Some(shapes) => (
                shapes.contains(&got),
                shapes.first().map_or_else(String::new, |(s, c, _)| {
                    format!("HTTP {} {c}", s.unwrap_or(0))
                }),
            ),
            None => (ex.status == Some(404), "HTTP 404".to_string()),
        };
        if !like {
            out.push(finding(
                ex.answer_line,
                id,
                Rule::ForeignIdDistinguishable,
                format!(
                    "{route} for another key's job was answered HTTP {} {}, but an id never issued gets {reference}: the answer tells the caller the job exists",
                    ex.status.unwrap_or(0),
                    got.1
                ),
            ));
        }
    }
    out
}

/// X-11: a job the server canceled while it was queued is refunded: an Open API cancel answered
/// `canceled` for a job never seen past `queued` must not say `refunded: false`.
pub fn queued_cancel_refunds(facts: &JobFacts) -> Vec<Finding> {
    let mut out = Vec::new();
    for ex in &facts.exchanges {
        let JobCall::Cancel { id, open_api: true } = ex.call() else {
            continue;
        };
        if !ex.ok() || ex.body.pointer("/data/refunded") != Some(&Value::Bool(false)) {
            continue;
        }
        let started = facts.seen.iter().any(|s| {
            s.id == id
                && s.line < ex.answer_line
                && !matches!(s.status, Status::Queued | Status::Canceled)
        });
        if !started {
            out.push(finding(
                ex.answer_line,
                &id,
                Rule::CancelNotRefunded,
                format!(
                    "the job was canceled while {} and the answer says refunded: false; a job canceled before it started is refunded",
                    facts
                        .last_status_before(&id, ex.request_line)
                        .map_or("queued", Status::as_str)
                ),
            ));
        }
    }
    out
}

/// X-12: a 429 answer (a rate limit, `queue_full`) carries `Retry-After`.
#[must_use]
pub fn too_many_says_when(facts: &JobFacts) -> Vec<Finding> {
    facts
        .exchanges
        .iter()
        .filter(|ex| ex.status == Some(429) && !ex.retry_after)
        .map(|ex| Finding {
            line: ex.answer_line,
            task_id: ex.call().job().map(String::from),
            violation: Violation::new(
                Rule::RetryAfterMissing,
                format!(
                    "{} {} was refused with HTTP 429 {} and no Retry-After",
                    ex.method,
                    ex.path,
                    ex.error_text("/error/code")
                ),
            ),
        })
        .collect()
}

/// X-13: a status request sent no sooner than the `Retry-After` of the previous answer about
/// the same job (to the same principal) must not be refused with 429 again.
#[must_use]
pub fn retry_after_is_honoured(facts: &JobFacts) -> Vec<Finding> {
    let mut out = Vec::new();
    for (i, ex) in facts.exchanges.iter().enumerate() {
        let call = ex.call();
        let (JobCall::Get { id, .. }, Some(429)) = (&call, ex.status) else {
            continue;
        };
        let previous = facts.exchanges.iter().take(i).rev().find(|p| {
            p.answer_line > 0 && p.principal == ex.principal && p.call().job() == Some(id.as_str())
        });
        let Some((prev, wait)) = previous.and_then(|p| Some((p, p.retry_after_ms?))) else {
            continue;
        };
        let gap = ex.sent_at.saturating_sub(prev.answered_at);
        if gap >= wait {
            out.push(finding(
                ex.answer_line,
                id,
                Rule::PollRefusedAtFloor,
                format!(
                    "{} {} sent {gap} ms after an answer that said Retry-After {wait} ms was refused with HTTP 429 again",
                    ex.method, ex.path
                ),
            ));
        }
    }
    out
}

/// X-14: a `jobs_wait` answered as satisfied (`timed_out: false`) meets its condition (`all`:
/// every job settled; `any`: at least one) and lists exactly the ids it was asked.
pub fn wait_meets_its_condition(facts: &JobFacts) -> Vec<Finding> {
    let mut out = Vec::new();
    for ex in &facts.exchanges {
        if ex.call() != JobCall::Wait || !ex.ok() {
            continue;
        }
        let Ok(answer) = crate::wire::sume::read_wait(&ex.body) else {
            continue;
        };
        let mut asked: Vec<&str> = ex
            .request
            .get("job_ids")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        asked.sort_unstable();
        asked.dedup();
        let mut listed: Vec<&str> = answer.jobs.iter().map(|j| j.id.as_str()).collect();
        listed.sort_unstable();
        listed.dedup();
        let any = ex.request.get("wait_for").and_then(Value::as_str) == Some("any");
        let settled = answer
            .jobs
            .iter()
            .filter(|j| j.status.is_terminal())
            .count();
        let why = if asked != listed {
            Some(format!(
                "it asked for {} job(s) and the answer lists {}",
                asked.len(),
                listed.len()
            ))
        } else if answer.timed_out {
            None
        } else if any && settled == 0 {
            Some("wait_for \"any\" was answered timed_out: false with no job settled".into())
        } else if !any && settled < answer.jobs.len() {
            Some(format!(
                "wait_for \"all\" was answered timed_out: false with {} of {} job(s) still running",
                answer.jobs.len() - settled,
                answer.jobs.len()
            ))
        } else {
            None
        };
        if let Some(why) = why {
            out.push(Finding {
                line: ex.answer_line,
                task_id: None,
                violation: Violation::new(
                    Rule::WaitConditionBroken,
                    format!("POST {}: {why}", ex.path),
                ),
            });
        }
    }
    out
}

/// Every job rule of this module on one job log, in line order.
#[must_use]
pub fn check_jobs(lines: &[(usize, Value)]) -> Vec<Finding> {
    let facts = JobFacts::read(lines);
    let mut out = created_job_resolves(&facts);
    out.extend(key_replays_the_job(&facts));
    out.extend(foreign_job_like_unknown(&facts));
    out.extend(queued_cancel_refunds(&facts));
    out.extend(too_many_says_when(&facts));
    out.extend(retry_after_is_honoured(&facts));
    out.extend(wait_meets_its_condition(&facts));
    out.sort_by_key(|f| f.line);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;
    use serde_json::json;

    fn req(line: usize, t: u64, id: u64, method: &str, tid: &str, who: &str) -> (usize, Value) {
        (
            line,
            json!({"t_ms": t, "dir": "c2s", "http": {"principal": who},
                "msg": {"jsonrpc": "2.0", "id": id, "method": method, "params": {"taskId": tid}}}),
        )
    }
    fn ok(line: usize, t: u64, id: u64, result: Value) -> (usize, Value) {
        (
            line,
            json!({"t_ms": t, "dir": "s2c", "http": {"status": 200},
                "msg": {"jsonrpc": "2.0", "id": id, "result": result}}),
        )
    }
    fn err(line: usize, t: u64, id: u64, http: u64, code: i64) -> (usize, Value) {
        (
            line,
            json!({"t_ms": t, "dir": "s2c", "http": {"status": http},
                "msg": {"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": "x"}}}),
        )
    }
    fn create(who: &str) -> Vec<(usize, Value)> {
        vec![
            (
                1,
                json!({"t_ms": 0, "dir": "c2s", "http": {"principal": who},
                "msg": {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "t"}}}),
            ),
            ok(
                2,
                1,
                1,
                json!({"resultType": "task", "taskId": "T", "status": "working", "ttlMs": 10000, "pollIntervalMs": 200}),
            ),
        ]
    }
    fn rules(lines: &[(usize, Value)]) -> Vec<&'static str> {
        check(lines)
            .iter()
            .map(|f| f.violation.rule.code())
            .collect()
    }

    #[test]
    fn x1_not_found_right_after_create() {
        let mut l = create("a");
        l.extend([
            req(3, 201, 2, "tasks/get", "T", "a"),
            err(4, 202, 2, 400, -32602),
        ]);
        assert_eq!(rules(&l), ["created_task_not_found"]);
        // After the TTL, or after the task was seen settled, "unknown" is allowed.
        let mut l = create("a");
        l.extend([
            req(3, 20000, 2, "tasks/get", "T", "a"),
            err(4, 20001, 2, 400, -32602),
        ]);
        assert!(rules(&l).is_empty());
        let mut l = create("a");
        l.extend([
            req(3, 201, 2, "tasks/get", "T", "a"),
            ok(
                4,
                202,
                2,
                json!({"taskId": "T", "status": "completed", "result": {}}),
            ),
            req(5, 500, 3, "tasks/get", "T", "a"),
            err(6, 501, 3, 400, -32602),
        ]);
        assert!(rules(&l).is_empty());
    }

    #[test]
    fn x3_cancelled_needs_a_cancel_or_a_reason() {
        let mut l = create("a");
        l.extend([
            req(3, 201, 2, "tasks/get", "T", "a"),
            ok(4, 202, 2, json!({"taskId": "T", "status": "cancelled"})),
        ]);
        assert_eq!(rules(&l), ["cancelled_unasked"]);
        let mut l = create("a");
        l.extend([
            req(3, 201, 2, "tasks/cancel", "T", "a"),
            ok(4, 202, 2, json!({"resultType": "complete"})),
            req(5, 401, 3, "tasks/get", "T", "a"),
            ok(6, 402, 3, json!({"taskId": "T", "status": "cancelled"})),
        ]);
        assert!(rules(&l).is_empty());
        let mut l = create("a");
        l.extend([
            req(3, 201, 2, "tasks/get", "T", "a"),
            ok(
                4,
                202,
                2,
                json!({"taskId": "T", "status": "cancelled", "statusMessage": "shutting down"}),
            ),
        ]);
        assert!(rules(&l).is_empty());
    }

    #[test]
    fn x4_foreign_must_look_unknown() {
        let base = |foreign: (usize, Value)| {
            let mut l = create("a");
            l.extend([
                req(3, 10, 2, "tasks/get", "never-issued", "b"),
                err(4, 11, 2, 400, -32602),
                req(5, 20, 3, "tasks/get", "T", "b"),
                foreign,
            ]);
            rules(&l)
        };
        assert!(base(err(6, 21, 3, 400, -32602)).is_empty());
        assert_eq!(
            base(err(6, 21, 3, 403, -32003)),
            ["foreign_id_distinguishable"]
        );
        assert_eq!(
            base(ok(6, 21, 3, json!({"taskId": "T", "status": "working"}))),
            ["foreign_id_distinguishable"]
        );
        // The finding says both answers in words.
        let mut l = create("a");
        l.extend([
            req(3, 10, 2, "tasks/get", "never-issued", "b"),
            err(4, 11, 2, 400, -32602),
            req(5, 20, 3, "tasks/get", "T", "b"),
            ok(6, 21, 3, json!({"taskId": "T", "status": "working"})),
        ]);
        let detail = &check(&l)[0].violation.detail;
        assert!(
            detail.contains("was answered HTTP 200 with a success answer, but an id never issued gets HTTP 400 with error -32602"),
            "{detail}"
        );
        // Without principals there is nothing foreign.
        let mut l = create("");
        l.extend([
            req(3, 10, 2, "tasks/get", "T", ""),
            ok(4, 11, 2, json!({"taskId": "T", "status": "working"})),
        ]);
        assert!(rules(&l).is_empty());
    }

    #[test]
    fn x5_429_at_the_floor() {
        let mut l = create("a");
        l.extend([
            req(3, 250, 2, "tasks/get", "T", "a"),
            err(4, 251, 2, 429, -32000),
        ]);
        assert_eq!(rules(&l), ["poll_refused_at_floor"]);
        // Polled too early: the 429 is deserved.
        let mut l = create("a");
        l.extend([
            req(3, 50, 2, "tasks/get", "T", "a"),
            err(4, 51, 2, 429, -32000),
        ]);
        assert!(rules(&l).is_empty());
    }

    // Job logs: `(c2s, s2c)` pairs.

    fn jreq(t: u64, who: &str, method: &str, path: &str, key: Option<&str>, body: Value) -> Value {
        let mut http = json!({"method": method, "path": path, "principal": who});
        if let Some(k) = key {
            http["idempotency_key"] = json!(k);
        }
        json!({"t_ms": t, "dir": "c2s", "http": http, "body": body})
    }
    fn jans(t: u64, status: u64, retry_after: Option<&str>, body: Value) -> Value {
        let mut http = json!({"status": status});
        if let Some(r) = retry_after {
            http["retry_after"] = json!(r);
        }
        json!({"t_ms": t, "dir": "s2c", "http": http, "body": body})
    }
    fn submit(t: u64, who: &str, key: Option<&str>, id: &str) -> [Value; 2] {
        [
            jreq(
                t,
                who,
                "POST",
                "/v1/image-router/generate",
                key,
                json!({"model": "m"}),
            ),
            jans(
                t + 1,
                200,
                None,
                json!({"data": {"request_id": id, "sume_status": "queued"}}),
            ),
        ]
    }
    fn status(t: u64, who: &str, id: &str, answer: Value) -> [Value; 2] {
        [
            jreq(
                t,
                who,
                "GET",
                &format!("/v1/jobs/{id}/status"),
                None,
                Value::Null,
            ),
            answer,
        ]
    }
    fn open_status(t: u64, s: &str) -> Value {
        jans(t, 200, None, json!({"data": {"sume_status": s}}))
    }
    fn not_found(t: u64, id: &str) -> Value {
        jans(
            t,
            404,
            None,
            json!({"error": {"code": "not_found", "message": format!("no job {id}")}}),
        )
    }
    fn job_rules(pairs: Vec<[Value; 2]>) -> Vec<&'static str> {
        let lines: Vec<(usize, Value)> = pairs
            .into_iter()
            .flatten()
            .enumerate()
            .map(|(i, v)| (i + 1, v))
            .collect();
        check_jobs(&lines)
            .iter()
            .map(|f| f.violation.rule.code())
            .collect()
    }

    /// Rule X-7.
    #[test]
    fn x7_a_fresh_job_resolves_for_its_key() {
        let bad = job_rules(vec![
            submit(0, "a", Some("k"), "J"),
            status(10, "a", "J", not_found(11, "J")),
        ]);
        assert_eq!(bad, ["created_job_not_found"]);
        // After it was seen settled, or for another key, a 404 is no X-7 finding.
        let ok = job_rules(vec![
            submit(0, "a", Some("k"), "J"),
            status(10, "a", "J", open_status(11, "completed")),
            status(20, "a", "J", not_found(21, "J")),
        ]);
        assert!(ok.is_empty(), "{ok:?}");
    }

    /// Rule X-8.
    #[test]
    fn x8_a_repeated_key_replays_the_job() {
        let replayed = job_rules(vec![
            submit(0, "a", Some("k"), "J"),
            submit(5, "a", Some("k"), "J"),
        ]);
        assert!(replayed.is_empty());
        let twice = job_rules(vec![
            submit(0, "a", Some("k"), "J"),
            submit(5, "a", Some("k"), "J2"),
        ]);
        assert_eq!(twice, ["idempotency_key_not_replayed"]);
        // No key, or another principal's key: new jobs are right.
        assert!(job_rules(vec![submit(0, "a", None, "J"), submit(5, "a", None, "J2")]).is_empty());
        assert!(job_rules(vec![
            submit(0, "a", Some("k"), "J"),
            submit(5, "b", Some("k"), "J2")
        ])
        .is_empty());
    }

    /// Rule X-9.
    #[test]
    fn x9_another_keys_job_looks_unknown() {
        let with = |foreign: Value| {
            job_rules(vec![
                submit(0, "a", Some("k"), "J"),
                status(10, "b", "never", not_found(11, "never")),
                status(20, "b", "J", foreign),
            ])
        };
        assert!(with(not_found(21, "J")).is_empty());
        assert_eq!(
            with(jans(
                21,
                403,
                None,
                json!({"error": {"code": "forbidden", "message": "not yours"}})
            )),
            ["foreign_id_distinguishable"]
        );
        assert_eq!(
            with(open_status(21, "queued")),
            ["foreign_id_distinguishable"]
        );
        // A request with no key (the anonymous principal) is refused for every id alike: no
        // finding, and no reference that would make a keyed answer look distinguishable.
        let unauthorized = |t| {
            jans(
                t,
                401,
                None,
                json!({"error": {"code": "unauthorized", "message": "send a key"}}),
            )
        };
        let keyless = job_rules(vec![
            submit(0, "a", Some("k"), "J"),
            status(10, "", "J", unauthorized(11)),
            status(20, "a", "never", not_found(21, "never")),
            status(30, "b", "J", not_found(31, "J")),
        ]);
        assert!(keyless.is_empty(), "{keyless:?}");
        let told = job_rules(vec![
            submit(0, "a", Some("k"), "J"),
            status(10, "", "never", unauthorized(11)),
            status(20, "a", "never", not_found(21, "never")),
            status(30, "b", "J", unauthorized(31)),
        ]);
        assert_eq!(told, ["foreign_id_distinguishable"]);
    }

    /// Rules X-11, X-12, X-13.
    #[test]
    fn x11_x12_x13_refunds_and_retry_after() {
        let cancel = |refunded: bool| {
            [
                jreq(10, "a", "POST", "/v1/jobs/J/cancel", None, Value::Null),
                jans(
                    11,
                    200,
                    None,
                    json!({"data": {"request_id": "J", "sume_status": "canceled", "refunded": refunded}}),
                ),
            ]
        };
        assert!(job_rules(vec![submit(0, "a", Some("k"), "J"), cancel(true)]).is_empty());
        assert_eq!(
            job_rules(vec![submit(0, "a", Some("k"), "J"), cancel(false)]),
            ["cancel_not_refunded"]
        );
        let full = |retry: Option<&str>| {
            [
                jreq(
                    0,
                    "a",
                    "POST",
                    "/v1/image-router/generate",
                    Some("k"),
                    json!({"model": "m"}),
                ),
                jans(
                    1,
                    429,
                    retry,
                    json!({"error": {"code": "queue_full", "message": "full"}}),
                ),
            ]
        };
        assert!(job_rules(vec![full(Some("1"))]).is_empty());
        assert_eq!(job_rules(vec![full(None)]), ["retry_after_missing"]);
        let limited = |t: u64| {
            status(
                t,
                "a",
                "J",
                jans(
                    t + 1,
                    429,
                    Some("1"),
                    json!({"error": {"code": "rate_limit_exceeded"}}),
                ),
            )
        };
        // Asked again 1 s after "Retry-After: 1": refused again is X-13; sooner is deserved.
        assert_eq!(
            job_rules(vec![
                submit(0, "a", Some("k"), "J"),
                limited(10),
                limited(1011)
            ]),
            ["poll_refused_at_floor"]
        );
        assert!(job_rules(vec![
            submit(0, "a", Some("k"), "J"),
            limited(10),
            limited(500)
        ])
        .is_empty());
    }

    /// Rule X-14.
    #[test]
    fn x14_a_satisfied_wait_meets_its_condition() {
        let wait = |wait_for: &str, statuses: &[&str], timed_out: bool| {
            let ids: Vec<String> = (0..statuses.len()).map(|i| format!("J{i}")).collect();
            let jobs: Vec<Value> = ids
                .iter()
                .zip(statuses)
                .map(|(id, s)| json!({"id": id, "status": s}))
                .collect();
            job_rules(vec![[
                jreq(
                    0,
                    "a",
                    "POST",
                    "/jobs/wait",
                    None,
                    json!({"job_ids": ids, "wait_for": wait_for}),
                ),
                jans(1, 200, None, json!({"jobs": jobs, "timed_out": timed_out})),
            ]])
        };
        assert!(wait("all", &["completed", "canceled"], false).is_empty());
        assert!(wait("all", &["completed", "processing"], true).is_empty());
        assert!(wait("any", &["completed", "processing"], false).is_empty());
        assert_eq!(
            wait("all", &["completed", "processing"], false),
            ["wait_condition_broken"]
        );
        assert_eq!(
            wait("any", &["queued", "processing"], false),
            ["wait_condition_broken"]
        );
        // An id left out of the answer.
        let short = job_rules(vec![[
            jreq(
                0,
                "a",
                "POST",
                "/jobs/wait",
                None,
                json!({"job_ids": ["J0", "J1"], "wait_for": "any"}),
            ),
            jans(
                1,
                200,
                None,
                json!({"jobs": [{"id": "J0", "status": "completed"}], "timed_out": false}),
            ),
        ]]);
        assert_eq!(short, ["wait_condition_broken"]);
    }
}
