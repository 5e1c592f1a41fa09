//! `longcall check`: lint MCP task transcripts and job logs. This file only reads files and
//! shapes reports: every finding is a violation the core's observer
//! (`longcall::endpoint::observer`) produced, with the rules it documents (E-40..E-51, and the
//! server gate's E-20..E-27 for client requests).
//!
//! Input formats (one JSON object per line, detected per file; `tests/traces/README.md`):
//!
//! * **MCP transcript**: `{"seq", "t_ms", "dir": "c2s"|"s2c", "http"?, "msg": <JSON-RPC message
//!   or null>}`. Lines whose `msg` is null are HTTP-only events and are skipped. On client
//!   requests, `http` carries `mcpMethod`, `mcpName` and `mcpProtocolVersion` (the request
//!   headers).
//! * **Job log**: `{"t_ms", "dir": "c2s"|"s2c", "http": {"method", "path", "status",
//!   "retry_after_ms"? | "retry_after"?}, "body": {...}}`. An `s2c` line answers the oldest `c2s`
//!   line not yet answered; `"http": {"status": 0}` means no answer arrived (a local timeout or a
//!   transport error). Paths: `POST /jobs` (submit, body carries `idempotency_key`),
//!   `GET /jobs/{id}`, `POST /jobs/{id}/cancel`, `POST /jobs/wait` (`{"job_ids": [...]}`,
//!   answered `{"jobs": [...]}`).

use longcall::endpoint::observer::{
    detect_model, Direction, Event, JobObserver, JobRequest, McpObserver, RetryAfter,
};
use longcall::server::gate::Headers;
use longcall::wire::Message;
use longcall::{Level, Model, Rule};
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
        Ok(check_job_log(name, &lines))
    } else if is_mcp {
        Ok(check_transcript(name, &lines, revision))
    } else {
        Err(Unreadable {
            file: name.into(),
            reason:
                "neither an MCP transcript (lines with `msg`) nor a job log (lines with `body`)"
                    .into(),
        })
    }
}

/// Sorts the observer's events into findings and notes, in line order.
fn collect(events: impl Iterator<Item = Event>) -> (Vec<Finding>, Vec<Note>) {
    let (mut findings, mut notes) = (Vec::new(), Vec::new());
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
            _ => {}
        }
    }
    findings.sort_by_key(|f| f.line);
    notes.sort_by_key(|n| n.line);
    (findings, notes)
}

fn str_at<'a>(v: &'a Value, pointer: &str) -> Option<&'a str> {
    v.pointer(pointer).and_then(Value::as_str)
}

/// One line of an MCP transcript, parsed: (line, time, direction, message, http).
type McpLine<'a> = (usize, u64, Direction, Message, Option<&'a Value>);

fn check_transcript(name: &str, lines: &[(usize, Value)], revision: Option<Model>) -> FileReport {
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
    let (findings, mut more) = collect(std::iter::from_fn(|| o.poll_event()));
    notes.append(&mut more);
    notes.sort_by_key(|n| n.line);
    FileReport {
        file: name.into(),
        format: Format::Mcp,
        model,
        revision_basis: basis,
        handles: o.handles(),
        findings,
        notes,
    }
}

fn check_job_log(name: &str, lines: &[(usize, Value)]) -> FileReport {
    let mut o = JobObserver::new();
    let null = Value::Null;
    for (line, v) in lines {
        let t = v.get("t_ms").and_then(Value::as_u64).unwrap_or(0);
        let http = v.get("http").unwrap_or(&null);
        let body = v.get("body").unwrap_or(&null);
        match v.get("dir").and_then(Value::as_str) {
            Some("c2s") => o.handle_request(
                *line,
                t,
                JobRequest {
                    method: str_at(http, "/method").unwrap_or(""),
                    path: str_at(http, "/path").unwrap_or(""),
                    body,
                },
            ),
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
    let (findings, notes) = collect(std::iter::from_fn(|| o.poll_event()));
    FileReport {
        file: name.into(),
        format: Format::JobLog,
        model: Model::Job,
        revision_basis: "job log",
        handles: o.handles(),
        findings,
        notes,
    }
}
