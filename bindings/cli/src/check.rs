//! `longcall check`: lint MCP task transcripts and Sume job logs against SEMANTICS.md.
//!
//! Input formats (one JSON object per line, detected per file):
//!
//! * **MCP transcript** (`../shared/mcp-wire/README.md`): `{"seq", "t_ms", "dir": "c2s"|"s2c",
//!   "http"?, "msg": <JSON-RPC message or null>}`. Lines whose `msg` is null are HTTP-only events
//!   and are skipped. Requests and responses are matched by JSON-RPC id **per direction**.
//! * **Job log**: `{"t_ms", "dir": "c2s"|"s2c", "http": {"method", "path", "status",
//!   "retry_after_ms"?}, "body": {...}}`. An `s2c` line answers the oldest `c2s` line not yet
//!   answered; `"http": {"status": 0}` means no answer arrived (a local timeout or a transport
//!   error). Paths: `POST /jobs` (submit, body carries `idempotency_key`), `GET /jobs/{id}`,
//!   `POST /jobs/{id}/cancel`, `POST /jobs/wait` (`{"job_ids": [...]}`, answered `{"jobs": [...]}`).
//!
//! A client request that breaks a rule (no capability `_meta`, a wrong `Mcp-Name`, a method the
//! revision does not have) and that the server rejects with the rule's own error code is a
//! deliberate probe handled correctly (the conformance harness sends such probes): it is listed
//! as a note, not a violation. When the server accepts it, or it is never answered, it counts.

use std::collections::{BTreeMap, HashMap, HashSet};

use longcall::lifecycle::{self, Observation, Seed};
use longcall::{Level, Model, Rule, Status};
use serde::Serialize;
use serde_json::Value;

/// What kind of file was read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    /// MCP wire transcript.
    Mcp,
    /// Sume job log.
    JobLog,
}

/// One broken rule.
#[derive(Clone, Debug, Serialize)]
pub struct Finding {
    /// 1-based line in the file.
    pub line: usize,
    /// The rule code.
    pub rule: Rule,
    /// MUST or SHOULD.
    pub level: Level,
    /// The task or job id, when the rule is about one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub handle: Option<String>,
    /// What was seen, in plain words.
    pub detail: String,
}

/// Something worth knowing that breaks no rule.
#[derive(Clone, Debug, Serialize)]
pub struct Note {
    /// 1-based line.
    pub line: usize,
    /// What happened.
    pub text: String,
}

/// The result for one file.
#[derive(Clone, Debug, Serialize)]
pub struct FileReport {
    /// The path as given.
    pub file: String,
    /// Transcript or job log.
    pub format: Format,
    /// The model the file was read as.
    pub model: Model,
    /// What the model rests on (a header, a shape, `--revision`, ...).
    pub revision_basis: &'static str,
    /// Handles (tasks or jobs) seen.
    pub handles: usize,
    /// Violations, in line order.
    pub findings: Vec<Finding>,
    /// Notes.
    pub notes: Vec<Note>,
}

impl FileReport {
    /// True when a MUST was broken (or a SHOULD, with `strict`).
    pub fn fails(&self, strict: bool) -> bool {
        self.findings
            .iter()
            .any(|f| f.level == Level::Must || strict)
    }
}

/// Why a file could not be read at all (exit 2).
#[derive(Clone, Debug, Serialize)]
pub struct Unreadable {
    /// The path.
    pub file: String,
    /// Why.
    pub reason: String,
}

/// Checks one file from disk.
pub fn check_path(path: &str, revision: Option<Model>) -> Result<FileReport, Unreadable> {
    let text = std::fs::read_to_string(path).map_err(|e| Unreadable {
        file: path.into(),
        reason: format!("cannot read: {e}"),
    })?;
    check_text(path, &text, revision)
}

/// Checks the text of one file. `revision` overrides MCP revision detection.
pub fn check_text(
    name: &str,
    text: &str,
    revision: Option<Model>,
) -> Result<FileReport, Unreadable> {
    let mut lines = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        if raw.trim().is_empty() {
            continue;
        }
        // The core's guarded reader: size, depth and string limits are checked before serde runs.
        match longcall::wire::read_json(raw) {
            Ok(v @ Value::Object(_)) => lines.push((i + 1, v)),
            Ok(_) => {
                return Err(Unreadable {
                    file: name.into(),
                    reason: format!("line {}: not a JSON object (expected JSON Lines)", i + 1),
                })
            }
            Err(e) => {
                return Err(Unreadable {
                    file: name.into(),
                    reason: format!(
                        "line {}: not JSON ({}: {e}); expected JSON Lines",
                        i + 1,
                        e.code()
                    ),
                })
            }
        }
    }
    if lines.is_empty() {
        return Err(Unreadable {
            file: name.into(),
            reason: "no JSON Lines in the file".into(),
        });
    }
    let is_job = lines.iter().any(|(_, v)| v.get("body").is_some());
    let is_mcp = lines.iter().any(|(_, v)| v.get("msg").is_some());
    if is_job && !is_mcp {
        Ok(JobChecker::default().run(name, &lines))
    } else if is_mcp {
        let (model, basis) = match revision {
            Some(m) => (m, "--revision"),
            None => detect_revision(&lines),
        };
        let mut report = McpChecker::new(model).run(name, &per_principal(&lines, None));
        // Each principal is a client of its own: its polls, answers and the tasks it knows are
        // judged apart (another principal's task is an unknown id to it).
        for p in principals(&lines).iter().skip(1) {
            let other = McpChecker::new(model).run(name, &per_principal(&lines, Some(p)));
            report.handles = report.handles.max(other.handles);
            report.findings.extend(other.findings);
            report.notes.extend(other.notes);
        }
        report.notes.sort_by_key(|n| n.line);
        report.revision_basis = basis;
        // The rules only a prober can test (X-1...), so a probe's transcript reproduces here.
        for f in longcall::probe_rules::check(&lines) {
            report.findings.push(Finding {
                line: f.line,
                rule: f.violation.rule,
                level: f.violation.level,
                handle: f.task_id,
                detail: f.violation.detail,
            });
        }
        report.findings.sort_by_key(|f| f.line);
        Ok(report)
    } else {
        Err(Unreadable {
            file: name.into(),
            reason:
                "neither an MCP transcript (lines with `msg`) nor a job log (lines with `body`)"
                    .into(),
        })
    }
}

/// The `http.principal` labels of a transcript's requests, in order of first use.
fn principals(lines: &[(usize, Value)]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (_, v) in lines {
        if let Some(p) = v.pointer("/http/principal").and_then(Value::as_str) {
            if !out.iter().any(|o| o == p) {
                out.push(p.to_string());
            }
        }
    }
    out
}

/// The lines one principal's client saw: its requests, their answers, and (for the first
/// principal, `None`) everything that is not a request of another principal or its answer.
fn per_principal(lines: &[(usize, Value)], principal: Option<&str>) -> Vec<(usize, Value)> {
    let all = principals(lines);
    if all.len() < 2 {
        return lines.to_vec();
    }
    let me = principal.or(all.first().map(String::as_str)).unwrap_or("");
    let first = principal.is_none();
    let mut mine: HashSet<String> = HashSet::new();
    let mut theirs: HashSet<String> = HashSet::new();
    let mut out = Vec::new();
    for (line, v) in lines {
        let id = v.pointer("/msg/id").filter(|i| !i.is_null()).map(id_key);
        let is_request = v.pointer("/msg/method").is_some();
        let dir = v.get("dir").and_then(Value::as_str);
        let keep = match (dir, is_request, id) {
            (Some("c2s"), true, Some(id)) => {
                let who = v
                    .pointer("/http/principal")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                let ours = who == me || (first && who.is_empty());
                if ours {
                    mine.insert(id)
                } else {
                    theirs.insert(id)
                };
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

/// The revision a transcript speaks, by `longcall::wire::detect` over its lines: the
/// `MCP-Protocol-Version` header, a `_meta` protocol version or `initialize`'s
/// `protocolVersion` decide; otherwise the shapes only one revision has are counted (a 2026
/// harness may send a 2025-only method as a probe, so one shape does not decide alone). With no
/// evidence at all: 2025. Returns the model and what it rests on.
fn detect_revision(lines: &[(usize, Value)]) -> (Model, &'static str) {
    use longcall::wire::detect::{self, Basis};
    use longcall::wire::Message;
    let (mut y26, mut y25) = (0usize, 0usize);
    for (_, v) in lines {
        let Some(msg) = v.get("msg").filter(|m| !m.is_null()) else {
            continue;
        };
        if msg.get("method").and_then(Value::as_str) == Some("initialize") {
            let pv = msg
                .pointer("/params/protocolVersion")
                .and_then(Value::as_str);
            if let Some(m) = pv.and_then(detect::from_protocol_version) {
                return (m, "initialize protocolVersion");
            }
        }
        let header = v
            .pointer("/http/mcpProtocolVersion")
            .and_then(Value::as_str);
        let message = Message::from_value(msg.clone()).ok();
        let d = detect::detect(None, header, message.as_ref());
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
// Shared per-handle state

#[derive(Default)]
struct Handle {
    last: Option<Status>,
    first_terminal: Option<Status>,
    interval_ms: Option<u64>,
    last_answer_at: Option<u64>,
    confirm_due: bool,
    lost: bool,
    /// A job seen processing/running: it can no longer be cancelled, whatever it says later.
    started: bool,
    answered_keys: HashMap<String, bool>,
}

struct Findings {
    items: Vec<Finding>,
    notes: Vec<Note>,
}

impl Findings {
    fn push(&mut self, line: usize, rule: Rule, handle: Option<&str>, detail: String) {
        self.items.push(Finding {
            line,
            rule,
            level: rule.level(),
            handle: handle.map(String::from),
            detail,
        });
    }
    fn note(&mut self, line: usize, text: String) {
        self.notes.push(Note { line, text });
    }
}

/// Feeds one observed status of `id` through `lifecycle::observe`.
fn observe(
    model: Model,
    out: &mut Findings,
    h: &mut Handle,
    id: &str,
    line: usize,
    raw: &str,
    via: &str,
) {
    let status = match Status::parse(model, raw) {
        Ok(s) => s,
        Err(_) => {
            out.push(
                line,
                Rule::UnknownStatus,
                Some(id),
                format!("{via} reported status \"{raw}\", which {model} does not have"),
            );
            return;
        }
    };
    match h.last {
        None => {
            if let Ok(Seed::Violation) = lifecycle::seed(model, status) {
                out.push(
                    line,
                    Rule::BadSeed,
                    Some(id),
                    format!("{via}: the task was first seen \"{status}\"; a {model} task must start \"working\""),
                );
            }
        }
        Some(prev) => match lifecycle::observe(model, prev, status) {
            Ok(Observation::TerminalConflict) => {
                let first = h.first_terminal.unwrap_or(prev);
                out.push(
                    line,
                    Rule::TerminalConflict,
                    Some(id),
                    format!("{via} reported \"{status}\" after the terminal status \"{first}\"; the first terminal status stands"),
                );
                return;
            }
            Ok(Observation::Regression) => out.push(
                line,
                Rule::IllegalTransition,
                Some(id),
                format!(
                    "{via} reported \"{status}\" after \"{prev}\"; no allowed path leads there"
                ),
            ),
            _ => {}
        },
    }
    if status.phase() == Status::Processing {
        h.started = true;
    }
    if status.is_terminal() && h.first_terminal.is_none() {
        h.first_terminal = Some(status);
    }
    h.last = Some(status);
}

// ---------------------------------------------------------------------------------------------
// MCP transcripts

struct Pending {
    line: usize,
    method: String,
    params: Value,
    /// A rule the request itself breaks, and the error code that rejects it correctly.
    probe: Vec<(Rule, i64, String)>,
    /// The status the task had when the request was sent.
    status_at_send: Option<Status>,
}

struct McpChecker {
    model: Model,
    out: Findings,
    tasks: BTreeMap<String, Handle>,
    pending: HashMap<(String, String), Pending>,
    /// tools/call fingerprints whose earlier send failed (error answer) or is still unanswered.
    calls: Vec<(String, usize, String)>,
    unknown_notes: Vec<(usize, String, String)>,
}

const TASKS_EXT: &str = "io.modelcontextprotocol/tasks";

fn id_key(v: &Value) -> String {
    v.to_string()
}

fn has_capability(params: &Value) -> bool {
    params
        .pointer("/_meta/io.modelcontextprotocol~1clientCapabilities/extensions")
        .and_then(|e| e.get(TASKS_EXT))
        .is_some()
}

fn call_fingerprint(params: &Value) -> String {
    let name = params.get("name").cloned().unwrap_or(Value::Null);
    let args = params.get("arguments").cloned().unwrap_or(Value::Null);
    format!("{name}{args}")
}

fn status_str(v: &Value) -> Option<&str> {
    v.get("status").and_then(Value::as_str)
}

impl McpChecker {
    fn new(model: Model) -> McpChecker {
        McpChecker {
            model,
            out: Findings {
                items: Vec::new(),
                notes: Vec::new(),
            },
            tasks: BTreeMap::new(),
            pending: HashMap::new(),
            calls: Vec::new(),
            unknown_notes: Vec::new(),
        }
    }

    fn run(mut self, name: &str, lines: &[(usize, Value)]) -> FileReport {
        let end = lines.last().map_or(0, |(l, _)| *l);
        for (line, v) in lines {
            let Some(msg) = v.get("msg").filter(|m| !m.is_null()) else {
                continue;
            };
            let dir = v
                .get("dir")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string();
            let t = v.get("t_ms").and_then(Value::as_u64).unwrap_or(0);
            let http = v.get("http");
            let method = msg.get("method").and_then(Value::as_str);
            let id = msg.get("id").filter(|i| !i.is_null());
            match (method, id) {
                (Some(m), Some(id)) => self.request(*line, t, &dir, m, id, msg, http),
                (Some(m), None) => self.notification(*line, &dir, m, msg),
                (None, Some(id)) => self.response(*line, t, &dir, id, msg),
                (None, None) => {}
            }
        }
        // Requests never answered.
        let mut open: Vec<_> = self.pending.drain().collect();
        open.sort_by_key(|(_, p)| p.line);
        for (_, p) in open {
            for (rule, _, what) in p.probe {
                self.out.push(
                    p.line,
                    rule,
                    p.params.get("taskId").and_then(Value::as_str),
                    format!("{what}; the request was never answered"),
                );
            }
        }
        for (line, id, status) in std::mem::take(&mut self.unknown_notes) {
            if !self.tasks.contains_key(&id) {
                self.out.push(
                    line,
                    Rule::UnknownTaskNotification,
                    Some(&id),
                    format!("a status notification (\"{status}\") named a task this session never created or polled"),
                );
            }
        }
        for (id, h) in &self.tasks {
            if h.first_terminal.is_none() && !h.lost {
                self.out.note(
                    end,
                    format!("task {id} did not reach a terminal status in this transcript"),
                );
            }
        }
        // A codec finding that repeats one of ours (same line and rule) adds nothing.
        let ours: HashSet<(usize, Rule)> = self
            .out
            .items
            .iter()
            .filter(|f| !f.detail.ends_with("(wire codec)"))
            .map(|f| (f.line, f.rule))
            .collect();
        self.out
            .items
            .retain(|f| !f.detail.ends_with("(wire codec)") || !ours.contains(&(f.line, f.rule)));
        self.out.items.sort_by_key(|f| f.line);
        self.out.notes.sort_by_key(|n| n.line);
        FileReport {
            file: name.into(),
            format: Format::Mcp,
            model: self.model,
            revision_basis: "",
            handles: self.tasks.len(),
            findings: self.out.items,
            notes: self.out.notes,
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn request(
        &mut self,
        line: usize,
        t: u64,
        dir: &str,
        method: &str,
        id: &Value,
        msg: &Value,
        http: Option<&Value>,
    ) {
        let params = msg.get("params").cloned().unwrap_or(Value::Null);
        let mut probe = Vec::new();
        let task_id = params
            .get("taskId")
            .and_then(Value::as_str)
            .map(String::from);
        let is_2026 = self.model == Model::Task2026;
        if dir == "c2s" {
            if let Some(http) = http {
                if let Some(hm) = http.get("mcpMethod").and_then(Value::as_str) {
                    if hm != method {
                        probe.push((
                            Rule::McpNameHeader,
                            -32020,
                            format!("Mcp-Method header \"{hm}\" on a {method} request"),
                        ));
                    }
                }
                if method.starts_with("tasks/") && is_2026 {
                    match (
                        http.get("mcpName").and_then(Value::as_str),
                        task_id.as_deref(),
                    ) {
                        (None, _) => probe.push((
                            Rule::McpNameHeader,
                            -32020,
                            format!("{method} over HTTP without an Mcp-Name header"),
                        )),
                        (Some(n), Some(tid)) if n != tid => probe.push((
                            Rule::McpNameHeader,
                            -32020,
                            format!("Mcp-Name \"{n}\" differs from taskId \"{tid}\""),
                        )),
                        _ => {}
                    }
                }
            }
            if is_2026 && method.starts_with("tasks/") && !has_capability(&params) {
                probe.push((
                    Rule::MissingCapability,
                    -32021,
                    format!("{method} without the {TASKS_EXT} capability in params._meta"),
                ));
            }
            let removed = if is_2026 {
                matches!(method, "tasks/result" | "tasks/list")
            } else {
                method == "tasks/update"
            };
            if removed {
                probe.push((
                    Rule::WrongRevisionMethod,
                    -32601,
                    format!("{method} does not exist in {}", self.model),
                ));
            }
            if method == "tools/call" {
                let fp = call_fingerprint(&params);
                let unanswered = self
                    .pending
                    .iter()
                    .filter(|((d, _), p)| d == "c2s" && p.method == "tools/call")
                    .filter(|(_, p)| call_fingerprint(&p.params) == fp)
                    .map(|(_, p)| p.line)
                    .min();
                if let Some(first) = unanswered {
                    self.out.push(
                        line,
                        Rule::ResubmitAfterTimeout,
                        None,
                        format!("the same tools/call (same tool and arguments) as line {first} was sent again while that one was still unanswered (a local timeout?); a timeout is not a failure of the call, and resubmitting may run it twice"),
                    );
                } else if let Some((_, first, why)) = self.calls.iter().find(|(f, _, _)| *f == fp) {
                    self.out.push(
                        line,
                        Rule::ResubmitAfterTimeout,
                        None,
                        format!("the same tools/call (same tool and arguments) as line {first} was sent again after {why}; recover through the handle, never by resubmitting"),
                    );
                }
            }
            if let Some(tid) = task_id.as_deref() {
                if let Some(h) = self.tasks.get_mut(tid) {
                    if method == "tasks/get" && probe.is_empty() {
                        if let (Some(iv), Some(at)) = (h.interval_ms, h.last_answer_at) {
                            let gap = t.saturating_sub(at);
                            if gap < iv && !h.confirm_due {
                                self.out.push(
                                    line,
                                    Rule::PollTooFast,
                                    Some(tid),
                                    format!("tasks/get sent {gap} ms after the previous answer; the server asked for at least {iv} ms"),
                                );
                            }
                        }
                        h.confirm_due = false;
                    }
                    if method == "tasks/update" {
                        if let Some(resp) = params.get("inputResponses").and_then(Value::as_object)
                        {
                            for key in resp.keys() {
                                if h.answered_keys.contains_key(key) {
                                    self.out.push(
                                        line,
                                        Rule::InputAnsweredTwice,
                                        Some(tid),
                                        format!("input key \"{key}\" was answered a second time"),
                                    );
                                } else {
                                    h.answered_keys.insert(key.clone(), false);
                                }
                            }
                        }
                    }
                }
            }
        }
        let status_at_send = task_id
            .as_deref()
            .and_then(|tid| self.tasks.get(tid))
            .and_then(|h| h.last);
        self.pending.insert(
            (dir.to_string(), id_key(id)),
            Pending {
                line,
                method: method.into(),
                params,
                probe,
                status_at_send,
            },
        );
    }

    fn notification(&mut self, line: usize, dir: &str, method: &str, msg: &Value) {
        if dir != "s2c"
            || !(method == "notifications/tasks/status" || method == "notifications/tasks")
        {
            return;
        }
        let params = msg.get("params").cloned().unwrap_or(Value::Null);
        let task = params.get("task").unwrap_or(&params);
        let (Some(tid), Some(status)) =
            (task.get("taskId").and_then(Value::as_str), status_str(task))
        else {
            return;
        };
        match self.tasks.get_mut(tid) {
            Some(h) => {
                let model = self.model;
                observe(
                    model,
                    &mut self.out,
                    h,
                    tid,
                    line,
                    status,
                    "a status notification",
                );
            }
            None => self.unknown_notes.push((line, tid.into(), status.into())),
        }
    }

    fn response(&mut self, line: usize, t: u64, dir: &str, id: &Value, msg: &Value) {
        let req_dir = if dir == "s2c" { "c2s" } else { "s2c" };
        let Some(req) = self.pending.remove(&(req_dir.to_string(), id_key(id))) else {
            self.out
                .note(line, format!("a response with id {id} matches no request"));
            return;
        };
        let error_code = msg.pointer("/error/code").and_then(Value::as_i64);
        let result = msg.get("result");
        // Probes: a request that breaks a rule and is rejected with (one of) the rule's codes is
        // handled correctly; accepted, it counts.
        let probe_rejected = req
            .probe
            .iter()
            .any(|(_, code, _)| error_code == Some(*code));
        for (rule, code, what) in &req.probe {
            if probe_rejected {
                self.out.note(
                    line,
                    format!(
                        "line {}: {what}; the server rejected the request with {} as it must",
                        req.line,
                        error_code.unwrap_or(*code)
                    ),
                );
            } else {
                let got = match error_code {
                    Some(c) => format!("error {c}"),
                    None => "a success answer".into(),
                };
                self.out.push(req.line, *rule, req.params.get("taskId").and_then(Value::as_str), format!("{what}; the server answered with {got} instead of rejecting it with {code}"));
            }
        }
        if probe_rejected || req_dir != "c2s" {
            return;
        }
        let tid = req
            .params
            .get("taskId")
            .and_then(Value::as_str)
            .map(String::from);
        match req.method.as_str() {
            "tools/call" => self.call_answer(line, t, &req, result, error_code),
            "tasks/get" => {
                if let Some(tid) = tid {
                    self.get_answer(line, t, &tid, result, error_code)
                }
            }
            "tasks/cancel" => {
                if let Some(tid) = tid {
                    self.cancel_answer(line, t, &tid, &req, result, error_code)
                }
            }
            "tasks/update" => {
                if let Some(h) = tid.as_deref().and_then(|t| self.tasks.get_mut(t)) {
                    h.confirm_due = true;
                }
                if let Some(r) = result {
                    self.expect_complete(line, tid.as_deref(), r, "tasks/update ack");
                    self.codec(line, tid.as_deref(), Codec::Ack, r);
                }
            }
            "tasks/result" if self.model == Model::Task2025 => {
                if let Some(tid) = tid {
                    self.result_answer(line, &tid, result, error_code)
                }
            }
            "tasks/list" => {
                if let Some(list) = result
                    .and_then(|r| r.get("tasks"))
                    .and_then(Value::as_array)
                {
                    for task in list {
                        if let (Some(id), Some(s)) =
                            (task.get("taskId").and_then(Value::as_str), status_str(task))
                        {
                            if let Some(h) = self.tasks.get_mut(id) {
                                observe(self.model, &mut self.out, h, id, line, s, "tasks/list");
                            }
                        }
                    }
                }
            }
            _ => {}
        }
    }

    /// Adds the shape violations the core's wire reader reports for `value` (read as `what`).
    fn codec(&mut self, line: usize, tid: Option<&str>, what: Codec, value: &Value) {
        use longcall::wire::{mcp2025, mcp2026};
        let y26 = self.model == Model::Task2026;
        let violations = match (what, y26) {
            (Codec::Create, true) => mcp2026::read_create(value).map(|p| p.violations),
            (Codec::Create, false) => mcp2025::read_create(value).map(|p| p.violations),
            (Codec::Get, true) => mcp2026::read_get(value).map(|p| p.violations),
            (Codec::Get, false) => mcp2025::read_get(value).map(|p| p.violations),
            (Codec::Ack, true) => mcp2026::read_ack(value).map(|p| p.violations),
            (Codec::Ack, false) => return,
        };
        for v in violations.unwrap_or_default() {
            self.out
                .push(line, v.rule, tid, format!("{} (wire codec)", v.detail));
        }
    }

    fn expect_complete(&mut self, line: usize, tid: Option<&str>, r: &Value, what: &str) {
        if self.model != Model::Task2026 {
            return;
        }
        match r.get("resultType").and_then(Value::as_str) {
            Some("complete") => {}
            Some(other) => self.out.push(
                line,
                Rule::WrongResultType,
                tid,
                format!("{what} has resultType \"{other}\"; it must be \"complete\""),
            ),
            None => self.out.push(
                line,
                Rule::WrongResultType,
                tid,
                format!("{what} has no resultType; it must be \"complete\""),
            ),
        }
    }

    fn call_answer(
        &mut self,
        line: usize,
        t: u64,
        req: &Pending,
        result: Option<&Value>,
        error_code: Option<i64>,
    ) {
        let fp = call_fingerprint(&req.params);
        let Some(result) = result else {
            let code = error_code.map_or_else(
                || "an unreadable answer".to_string(),
                |c| format!("error {c}"),
            );
            // Only a transport or server failure invites a blind retry; a -32602/-32601/-32021
            // rejection is a permanent "no".
            if !matches!(error_code, Some(-32602 | -32601 | -32600 | -32021)) {
                self.calls
                    .push((fp, req.line, format!("it failed with {code} (line {line})")));
            }
            return;
        };
        let (task, is_task) = match self.model {
            Model::Task2026 => {
                let rt = result.get("resultType").and_then(Value::as_str);
                let looks_task = result.get("taskId").is_some();
                match (rt, looks_task) {
                    (Some("task"), _) => (Some(result), true),
                    (_, true) => {
                        self.out.push(
                            line,
                            Rule::WrongResultType,
                            result.get("taskId").and_then(Value::as_str),
                            format!(
                                "a CreateTaskResult with resultType {}; it must be \"task\"",
                                rt.map_or("absent".into(), |s| format!("\"{s}\""))
                            ),
                        );
                        (Some(result), true)
                    }
                    (Some("complete") | Some("input_required"), false) | (None, false) => {
                        (None, false)
                    }
                    (Some(other), false) => {
                        self.out.push(
                            line,
                            Rule::WrongResultType,
                            None,
                            format!("a tools/call result with resultType \"{other}\""),
                        );
                        (None, false)
                    }
                }
            }
            _ => match result.get("task") {
                Some(task) => (Some(task), true),
                None => (None, false),
            },
        };
        if !is_task {
            return;
        }
        let Some(task) = task else { return };
        let Some(tid) = task.get("taskId").and_then(Value::as_str) else {
            self.out.push(
                line,
                Rule::MissingField,
                None,
                "a task handle without taskId".into(),
            );
            return;
        };
        if self.model == Model::Task2026 && !has_capability(&req.params) {
            self.out.push(line, Rule::UnsolicitedTask, Some(tid), format!("the tools/call on line {} did not declare {TASKS_EXT}, yet the answer is a task", req.line));
        }
        self.codec(line, Some(tid), Codec::Create, result);
        let model = self.model;
        let h = self.tasks.entry(tid.to_string()).or_default();
        h.interval_ms = interval(task);
        h.last_answer_at = Some(t);
        if let Some(s) = status_str(task) {
            observe(
                model,
                &mut self.out,
                h,
                tid,
                line,
                s,
                "the CreateTaskResult",
            );
        } else {
            self.out.push(
                line,
                Rule::MissingField,
                Some(tid),
                "a task handle without status".into(),
            );
        }
    }

    fn get_answer(
        &mut self,
        line: usize,
        t: u64,
        tid: &str,
        result: Option<&Value>,
        error_code: Option<i64>,
    ) {
        let model = self.model;
        let known = self.tasks.contains_key(tid);
        let Some(r) = result else {
            match error_code {
                Some(-32602) => {
                    self.out.note(line, format!("tasks/get for {tid}: -32602, the handle no longer resolves (outcome: lost)"));
                    if let Some(h) = self.tasks.get_mut(tid) {
                        h.lost = true;
                    }
                }
                Some(c) => self
                    .out
                    .note(line, format!("tasks/get for {tid} answered error {c}")),
                None => {}
            }
            return;
        };
        self.expect_complete(line, Some(tid), r, "the tasks/get answer");
        self.codec(line, Some(tid), Codec::Get, r);
        let task = if model == Model::Task2025 {
            r.get("task").unwrap_or(r)
        } else {
            r
        };
        let Some(s) = status_str(task) else {
            self.out.push(
                line,
                Rule::MissingField,
                Some(tid),
                "a tasks/get answer without status".into(),
            );
            return;
        };
        let h = self.tasks.entry(tid.to_string()).or_default();
        if !known {
            h.interval_ms = None;
        }
        if let Some(iv) = interval(task) {
            h.interval_ms = Some(iv);
        }
        h.last_answer_at = Some(t);
        observe(model, &mut self.out, h, tid, line, s, "tasks/get");
        if model != Model::Task2026 {
            return;
        }
        // Payload against status (SEMANTICS §2, §9).
        let has = |k: &str| task.get(k).is_some_and(|v| !v.is_null());
        let mut bad = Vec::new();
        match s {
            "completed" => {
                if !has("result") {
                    bad.push("completed without result");
                }
                if has("error") {
                    bad.push("completed with error");
                }
            }
            "failed" => {
                if has("result") {
                    bad.push("failed with a result (isError results stay completed)");
                }
                if !has("error") {
                    bad.push("failed without error");
                }
            }
            _ => {
                if has("result") || has("error") {
                    bad.push("a result or error on a status that is not terminal");
                }
            }
        }
        if s == "input_required" && !has("inputRequests") {
            bad.push("input_required without inputRequests");
        }
        if s != "input_required" && has("inputRequests") {
            bad.push("inputRequests on a status that is not input_required");
        }
        for b in bad {
            self.out.push(
                line,
                Rule::ResultContradictsStatus,
                Some(tid),
                format!("tasks/get answered {b}"),
            );
        }
        // Input keys: a key answered, then seen gone, then asked again is reused.
        let keys: HashSet<String> = task
            .get("inputRequests")
            .and_then(Value::as_object)
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default();
        let h = self.tasks.entry(tid.to_string()).or_default();
        let mut reused = Vec::new();
        for (key, gone) in h.answered_keys.iter_mut() {
            if keys.contains(key) {
                if *gone {
                    reused.push(key.clone());
                }
            } else {
                *gone = true;
            }
        }
        for key in reused {
            self.out.push(
                line,
                Rule::InputKeyReused,
                Some(tid),
                format!("input key \"{key}\" was answered and later asked again"),
            );
        }
    }

    fn cancel_answer(
        &mut self,
        line: usize,
        t: u64,
        tid: &str,
        req: &Pending,
        result: Option<&Value>,
        error_code: Option<i64>,
    ) {
        let model = self.model;
        let before = req.status_at_send;
        let known = self.tasks.get(tid).is_some_and(|h| !h.lost);
        if let Some(h) = self.tasks.get_mut(tid) {
            h.confirm_due = true;
        }
        match (model, result, error_code) {
            (Model::Task2026, Some(r), _) => {
                self.expect_complete(line, Some(tid), r, "the tasks/cancel ack");
                self.codec(line, Some(tid), Codec::Ack, r);
                if r.get("status").is_some() || r.get("taskId").is_some() {
                    self.out.push(
                        line,
                        Rule::CancelAnswerBreaksRevision,
                        Some(tid),
                        "the 2026 tasks/cancel answer carries a task; it must be the empty ack"
                            .into(),
                    );
                }
            }
            (Model::Task2026, None, Some(-32602))
                if known && before.is_some_and(Status::is_terminal) =>
            {
                self.out.push(
                    line,
                    Rule::CancelTerminalNotAcked,
                    Some(tid),
                    format!(
                        "cancelling a {} task was answered -32602; 2026 answers the same empty ack",
                        before.map_or("terminal", Status::as_str)
                    ),
                );
            }
            (Model::Task2026, None, Some(-32602)) => {
                self.out.note(
                    line,
                    format!("tasks/cancel for {tid}: -32602, unknown or expired task"),
                );
            }
            (Model::Task2026, None, Some(c)) => {
                self.out.push(line, Rule::CancelAnswerBreaksRevision, Some(tid), format!("tasks/cancel answered error {c}; 2026 answers the empty ack (or -32602 for an unknown task)"));
            }
            (_, Some(r), _) => {
                // 2025: the answer is the task, already cancelled; terminal tasks must be rejected.
                let task = r.get("task").unwrap_or(r);
                let s = status_str(task);
                if before.is_some_and(Status::is_terminal) {
                    self.out.push(line, Rule::CancelAnswerBreaksRevision, Some(tid), format!("cancelling a task already \"{}\" must be rejected with -32602, but it was answered with a task", before.map_or("", Status::as_str)));
                } else if s != Some("cancelled") {
                    self.out.push(line, Rule::CancelAnswerBreaksRevision, Some(tid), format!("the 2025 tasks/cancel answer must be the task already \"cancelled\", got {}", s.map_or("no status".into(), |s| format!("\"{s}\""))));
                }
                if let (Some(s), Some(h)) = (s, self.tasks.get_mut(tid)) {
                    h.last_answer_at = Some(t);
                    observe(
                        model,
                        &mut self.out,
                        h,
                        tid,
                        line,
                        s,
                        "the tasks/cancel answer",
                    );
                }
            }
            (_, None, Some(-32602)) => {
                if !known {
                    self.out.note(
                        line,
                        format!("tasks/cancel for {tid}: -32602, unknown task"),
                    );
                } else if !before.is_some_and(Status::is_terminal) {
                    self.out.note(line, format!("tasks/cancel for {tid} answered -32602 while last seen \"{}\" (perhaps it ended in between)", before.map_or("?", Status::as_str)));
                }
            }
            (_, None, Some(c)) => {
                self.out.push(line, Rule::CancelAnswerBreaksRevision, Some(tid), format!("tasks/cancel answered error {c}; 2025 answers the cancelled task or -32602"));
            }
            (_, None, None) => {}
        }
    }

    fn result_answer(
        &mut self,
        line: usize,
        tid: &str,
        result: Option<&Value>,
        error_code: Option<i64>,
    ) {
        let status = self.tasks.get(tid).and_then(|h| h.first_terminal);
        let Some(r) = result else {
            if error_code == Some(-32602) {
                self.out.note(
                    line,
                    format!("tasks/result for {tid}: -32602, unknown task"),
                );
            }
            return;
        };
        let is_error = r.get("isError").and_then(Value::as_bool).unwrap_or(false);
        match (status, is_error) {
            (Some(Status::Completed), true) => self.out.push(line, Rule::ResultContradictsStatus, Some(tid), "the task is \"completed\" but tasks/result carries isError: true; 2025 maps an isError result to \"failed\"".into()),
            (Some(Status::Failed), false) => self.out.push(line, Rule::ResultContradictsStatus, Some(tid), "the task is \"failed\" but tasks/result is a plain success result".into()),
            (Some(Status::Cancelled), _) => self.out.push(line, Rule::ResultContradictsStatus, Some(tid), "the task is \"cancelled\" but tasks/result returned a result".into()),
            _ => {}
        }
    }
}

/// Which wire reader to run.
#[derive(Clone, Copy)]
enum Codec {
    Create,
    Get,
    Ack,
}

fn interval(task: &Value) -> Option<u64> {
    task.get("pollIntervalMs")
        .or_else(|| task.get("pollInterval"))
        .and_then(Value::as_u64)
}

// ---------------------------------------------------------------------------------------------
// Job logs

#[derive(Default)]
struct JobChecker {
    jobs: BTreeMap<String, Handle>,
    /// Submits: (body without key, key, line, state)
    submits: Vec<(String, Option<String>, usize, SubmitState)>,
}

#[derive(Clone, PartialEq)]
enum SubmitState {
    Unanswered,
    Failed(u16),
    Created(String),
    Rejected,
}

struct JobReq {
    line: usize,
    t: u64,
    method: String,
    path: String,
    status_at_send: Option<Status>,
}

impl JobChecker {
    fn run(mut self, name: &str, lines: &[(usize, Value)]) -> FileReport {
        let mut out = Findings {
            items: Vec::new(),
            notes: Vec::new(),
        };
        let end = lines.last().map_or(0, |(l, _)| *l);
        let mut queue: std::collections::VecDeque<JobReq> = Default::default();
        for (line, v) in lines {
            let dir = v.get("dir").and_then(Value::as_str).unwrap_or("");
            let t = v.get("t_ms").and_then(Value::as_u64).unwrap_or(0);
            let http = v.get("http").cloned().unwrap_or(Value::Null);
            let body = v.get("body").cloned().unwrap_or(Value::Null);
            if dir == "c2s" {
                let method = http
                    .get("method")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string();
                let path = http
                    .get("path")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string();
                let job_id = job_of_path(&path);
                if let Some(id) = &job_id {
                    if let Some(h) = self.jobs.get_mut(id) {
                        if method == "GET" {
                            if let (Some(iv), Some(at)) = (h.interval_ms, h.last_answer_at) {
                                let gap = t.saturating_sub(at);
                                if gap < iv && !h.confirm_due {
                                    out.push(*line, Rule::PollTooFast, Some(id), format!("GET {path} sent {gap} ms after the previous answer; the server asked for at least {iv} ms (Retry-After)"));
                                }
                            }
                            h.confirm_due = false;
                        }
                    }
                }
                if method == "POST" && path.trim_end_matches('/') == "/jobs" {
                    self.check_submit(&mut out, *line, &body);
                }
                let status_at_send =
                    job_id
                        .as_ref()
                        .and_then(|id| self.jobs.get(id))
                        .and_then(|h| match h.last {
                            Some(Status::Queued) if h.started => Some(Status::Processing),
                            other => other,
                        });
                queue.push_back(JobReq {
                    line: *line,
                    t,
                    method,
                    path,
                    status_at_send,
                });
            } else if dir == "s2c" {
                let Some(req) = queue.pop_front() else {
                    out.note(*line, "an answer with no request before it".into());
                    continue;
                };
                let status = http.get("status").and_then(Value::as_u64).unwrap_or(200) as u16;
                let retry = http
                    .get("retry_after_ms")
                    .and_then(Value::as_u64)
                    .or_else(|| {
                        let ra = http.get("retry_after")?;
                        ra.as_u64()
                            .or_else(|| ra.as_str().and_then(|s| s.trim().parse().ok()))
                            .map(|secs: u64| secs.saturating_mul(1000))
                    });
                self.answer(&mut out, *line, t, &req, status, retry, &body);
            }
        }
        for id in self
            .jobs
            .iter()
            .filter(|(_, h)| h.first_terminal.is_none() && !h.lost)
            .map(|(id, _)| id.clone())
        {
            out.note(
                end,
                format!("job {id} did not reach a terminal status in this log"),
            );
        }
        out.items.sort_by_key(|f| f.line);
        out.notes.sort_by_key(|n| n.line);
        FileReport {
            file: name.into(),
            format: Format::JobLog,
            model: Model::Job,
            revision_basis: "job log",
            handles: self.jobs.len(),
            findings: out.items,
            notes: out.notes,
        }
    }

    fn check_submit(&mut self, out: &mut Findings, line: usize, body: &Value) {
        let key = body
            .get("idempotency_key")
            .and_then(Value::as_str)
            .map(String::from);
        let mut rest = body.clone();
        if let Some(o) = rest.as_object_mut() {
            o.remove("idempotency_key");
        }
        let fp = rest.to_string();
        for (f, k, first, state) in &self.submits {
            if *f != fp || (k.is_some() && *k == key) {
                continue;
            }
            let why = match state {
                SubmitState::Unanswered => {
                    "it got no answer (a local timeout is not a failure of the job)".to_string()
                }
                SubmitState::Failed(s) => format!("it failed with HTTP {s}"),
                SubmitState::Created(id) => {
                    match self.jobs.get(id).and_then(|h| h.first_terminal) {
                        None => format!("it created job {id}, which was still running"),
                        Some(_) => continue,
                    }
                }
                SubmitState::Rejected => continue,
            };
            out.push(line, Rule::ResubmitAfterTimeout, None, format!("the submit of line {first} was sent again with a different idempotency key after {why}; poll the handle or retry with the same key"));
            break;
        }
        self.submits.push((fp, key, line, SubmitState::Unanswered));
    }

    #[allow(clippy::too_many_arguments)]
    fn answer(
        &mut self,
        out: &mut Findings,
        line: usize,
        t: u64,
        req: &JobReq,
        status: u16,
        retry: Option<u64>,
        body: &Value,
    ) {
        let path = req.path.trim_end_matches('/');
        let is_submit = req.method == "POST" && path == "/jobs";
        if is_submit {
            if let Some(s) = self.submits.iter_mut().rev().find(|s| s.2 == req.line) {
                s.3 = match status {
                    0 => SubmitState::Unanswered,
                    200..=299 => body
                        .get("id")
                        .and_then(Value::as_str)
                        .map_or(SubmitState::Rejected, |id| SubmitState::Created(id.into())),
                    429 | 500..=599 => SubmitState::Failed(status),
                    _ => SubmitState::Rejected,
                };
            }
        }
        if status == 0 {
            out.note(line, format!("{} {} got no answer", req.method, req.path));
            return;
        }
        let job_id = job_of_path(&req.path);
        if req.method == "POST" && path.ends_with("/cancel") {
            if let Some(id) = &job_id {
                self.cancel_answer(out, line, id, req.status_at_send, status, body);
                if let Some(h) = self.jobs.get_mut(id) {
                    h.confirm_due = true;
                }
            }
        }
        if status == 404 {
            if let Some(id) = &job_id {
                out.note(
                    line,
                    format!(
                        "job {id}: 404 not_found (unknown, or another member's); outcome: lost"
                    ),
                );
                if let Some(h) = self.jobs.get_mut(id) {
                    h.lost = true;
                }
            }
            return;
        }
        let mut seen: Vec<&Value> = Vec::new();
        if (200..300).contains(&status) {
            if let Some(list) = body.get("jobs").and_then(Value::as_array) {
                seen.extend(list.iter());
            } else if let Some(job) = body.get("job").filter(|j| j.is_object()) {
                seen.push(job);
            } else if body.get("id").is_some() {
                seen.push(body);
            }
        }
        let _ = req.t;
        for job in seen {
            let (Some(id), Some(s)) = (job.get("id").and_then(Value::as_str), status_str(job))
            else {
                out.push(
                    line,
                    Rule::MissingField,
                    None,
                    "a job without id or status".into(),
                );
                continue;
            };
            let h = self.jobs.entry(id.to_string()).or_default();
            h.last_answer_at = Some(t);
            if let Some(r) = retry {
                h.interval_ms = Some(r);
            }
            observe(
                Model::Job,
                out,
                h,
                id,
                line,
                s,
                &format!("{} {}", req.method, req.path),
            );
        }
        if let (Some(id), Some(r)) = (&job_id, retry) {
            let h = self.jobs.entry(id.clone()).or_default();
            h.interval_ms = Some(r);
            h.last_answer_at = Some(t);
        }
    }

    fn cancel_answer(
        &mut self,
        out: &mut Findings,
        line: usize,
        id: &str,
        before: Option<Status>,
        status: u16,
        body: &Value,
    ) {
        let code = body.pointer("/error/code").and_then(Value::as_str);
        let cancelable = body
            .pointer("/error/details/cancelable")
            .and_then(Value::as_bool);
        let phase = before.map(Status::phase);
        let mut bad = |why: String| out.push(line, Rule::CancelAnswerBreaksRevision, Some(id), why);
        match (status, code) {
            (200..=299, _) => {
                let s = status_str(body.get("job").unwrap_or(body));
                if s != Some("canceled") {
                    bad(format!("a successful jobs_cancel must return the canceled job, got status {}", s.unwrap_or("none")));
                } else if phase == Some(Status::Processing) {
                    bad("the job was already processing; a cancel after start must be 409 job_generation_already_started".into());
                } else if matches!(before, Some(Status::Completed | Status::Failed | Status::Expired)) {
                    bad(format!("the job was already \"{}\"; the answer must be 409 job_not_cancelable", before.map_or("", Status::as_str)));
                }
            }
            (409, Some("job_generation_already_started")) => {
                if cancelable != Some(false) {
                    bad("409 job_generation_already_started must carry details.cancelable: false".into());
                }
                if before == Some(Status::Canceled) {
                    bad("cancelling a canceled job is idempotent: the answer must be the same canceled job".into());
                } else if before.is_some_and(Status::is_terminal) {
                    bad(format!("the job was already \"{}\"; the answer must be 409 job_not_cancelable", before.map_or("", Status::as_str)));
                }
            }
            (409, Some("job_not_cancelable")) => {
                if before == Some(Status::Canceled) {
                    bad("cancelling a canceled job is idempotent: the answer must be the same canceled job".into());
                } else if phase == Some(Status::Processing) {
                    bad("the job is processing; the answer must be 409 job_generation_already_started".into());
                }
            }
            (404, _) => {}
            (s, c) => bad(format!("jobs_cancel answered HTTP {s} {}; the rules allow 200 canceled, 409 job_generation_already_started, 409 job_not_cancelable or 404 not_found", c.unwrap_or("(no error code)"))),
        }
    }
}

/// `/jobs/{id}` or `/jobs/{id}/cancel` → id (not `/jobs/wait`).
fn job_of_path(path: &str) -> Option<String> {
    let mut parts = path.trim_matches('/').split('/');
    match (parts.next(), parts.next()) {
        (Some("jobs"), Some(id)) if id != "wait" && !id.is_empty() => Some(id.to_string()),
        _ => None,
    }
}
