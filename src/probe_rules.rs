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

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use serde_json::Value;

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
    let http = ex
        .http_status
        .map(|s| format!("HTTP {s} "))
        .unwrap_or_default();
    match (ex.error_code, &ex.result) {
        (Some(c), _) => format!("{http}error {c}"),
        (None, Some(_)) => format!("{http}a success answer"),
        (None, None) => format!("{http}no JSON-RPC answer"),
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
                Some((h, c, ok)) => {
                    let http = h.map(|s| format!("HTTP {s} ")).unwrap_or_default();
                    match (c, ok) {
                        (Some(c), _) => format!("{http}error {c}"),
                        (None, _) => format!("{http}a success answer"),
                    }
                }
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
                    "tasks/get sent {gap} ms after the previous answer was refused with HTTP 429; the server's own interval is {iv} ms"
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
}
