//! The observer and the client agree (h11's rule 2): every bundled transcript (`tests/traces`,
//! and the interop recordings in `tests/interop/results` when a local run left them, the
//! prober's aside) goes through
//! `endpoint::observer` and, separately, through the client path a host runs (the wire mapping
//! `endpoint::codec` feeding one `Tracker` per call). For the rules the server's messages can
//! break, both must report the same violations on the same lines.
//!
//! Rules only one side can judge are left out, each for its reason:
//! * client-side rules (`poll_too_fast`, `resubmit_after_timeout`, `input_answered_twice`, the
//!   gate rules `mcp_name_header` / `missing_capability` / `wrong_revision_method`,
//!   `cancel_not_in_progress`): the client path does not judge the client;
//! * `unsolicited_task` needs the request the client sent, which a tracker never sees;
//! * `unknown_task_notification`: a tracker ignores a notification for another task, as allowed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use longcall::endpoint::codec::{read_answer, read_notification, Asked};
use longcall::endpoint::observer::{by_principal, detect_model, Direction, Event, McpObserver};
use longcall::server::gate::{self, Headers};
use longcall::tracker::{Input, Output, RequestKind, Tracker, TrackerConfig};
use longcall::wire::{Id, Message};
use longcall::{Model, Rule};
use serde_json::Value;

const CLIENT_SIDE: &[Rule] = &[
    Rule::PollTooFast,
    Rule::ResubmitAfterTimeout,
    Rule::InputAnsweredTwice,
    Rule::McpNameHeader,
    Rule::MissingCapability,
    Rule::WrongRevisionMethod,
    Rule::CancelNotInProgress,
    Rule::UnsolicitedTask,
    Rule::UnknownTaskNotification,
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn transcripts() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "jsonl") {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(&root().join("tests/traces"), &mut out);
    walk(&root().join("tests/interop/results"), &mut out);
    // The prober's recordings hold requests no client tracker sends (a cancel after the terminal
    // status, another principal's ids, polls at random moments): the client path has no state
    // to judge their answers by. The probe legs judge them with the observer alone.
    out.retain(|p| {
        !p.components()
            .any(|c| c.as_os_str() == "probe" || c.as_os_str() == "probe-jobs")
    });
    out.sort();
    out
}

struct Line {
    at: usize,
    t: u64,
    dir: Direction,
    message: Message,
    http: Option<Value>,
}

/// A transcript as each principal's client saw it (E-52: another principal's task is an unknown
/// id to it), the same views the checker judges.
fn read(path: &Path) -> Vec<Vec<Line>> {
    let text = std::fs::read_to_string(path).unwrap();
    by_principal(&lines_of(&text))
        .iter()
        .map(|view| parse(view))
        .collect()
}

fn lines_of(text: &str) -> Vec<(usize, Value)> {
    text.lines()
        .enumerate()
        .filter_map(|(i, l)| Some((i + 1, serde_json::from_str::<Value>(l).ok()?)))
        .collect()
}

fn parse_text(text: &str) -> Vec<Line> {
    parse(&lines_of(text))
}

fn parse(view: &[(usize, Value)]) -> Vec<Line> {
    let mut lines = Vec::new();
    for (at, v) in view {
        let Some(msg) = v.get("msg").filter(|m| !m.is_null()) else {
            continue;
        };
        let Some(dir) = v["dir"].as_str().and_then(Direction::parse) else {
            continue;
        };
        let Ok(message) = Message::from_value(msg.clone()) else {
            continue;
        };
        lines.push(Line {
            at: *at,
            t: v["t_ms"].as_u64().unwrap_or(0),
            dir,
            message,
            http: v.get("http").cloned(),
        });
    }
    lines
}

fn header<'a>(http: &'a Option<Value>, key: &str) -> Option<&'a str> {
    http.as_ref()
        .and_then(|h| h.get(key))
        .and_then(Value::as_str)
}

fn server_rules(list: Vec<(usize, Rule)>) -> Vec<(usize, Rule)> {
    let mut list: Vec<_> = list
        .into_iter()
        .filter(|(_, r)| !CLIENT_SIDE.contains(r))
        .collect();
    list.sort();
    list
}

fn observed(model: Model, lines: &[Line]) -> Vec<(usize, Rule)> {
    let mut o = McpObserver::new(model);
    for l in lines {
        let headers = (l.dir == Direction::ClientToServer && l.http.is_some()).then(|| Headers {
            mcp_method: header(&l.http, "mcpMethod"),
            mcp_name: header(&l.http, "mcpName"),
            protocol_version: header(&l.http, "mcpProtocolVersion"),
        });
        o.handle_message(l.at, l.t, l.dir, &l.message, headers.as_ref());
    }
    o.handle_end(lines.last().map_or(0, |l| l.at));
    let found = std::iter::from_fn(|| o.poll_event())
        .filter_map(|e| match e {
            Event::Violation { at, violation, .. } => Some((at, violation.rule)),
            _ => None,
        })
        .collect();
    server_rules(found)
}

/// The client path: codec answers into one tracker per call, the host steering each tracker so
/// that it has the same request in flight as the recorded client (a cancel press before a
/// cancel, the user's answers before an update).
fn as_client(model: Model, lines: &[Line]) -> Vec<(usize, Rule)> {
    let mut found = Vec::new();
    let mut pending: BTreeMap<Id, (String, Option<String>, Value)> = BTreeMap::new();
    let mut calls: BTreeMap<Id, Tracker> = BTreeMap::new();
    let mut tasks: BTreeMap<String, Tracker> = BTreeMap::new();
    let drain = |t: &mut Tracker, at: usize, found: &mut Vec<(usize, Rule)>| loop {
        match t.poll_output() {
            Output::Violation { violation } => found.push((at, violation.rule)),
            Output::WakeAt { .. } | Output::Idle => break,
            _ => {}
        }
    };
    for l in lines {
        match (&l.message, l.dir) {
            (Message::Request { id, method, params }, Direction::ClientToServer) => {
                let params = params.clone().unwrap_or(Value::Null);
                let tid = params["taskId"].as_str().map(String::from);
                if method == "tools/call" {
                    calls.insert(
                        id.clone(),
                        Tracker::new(model, TrackerConfig::default()).unwrap(),
                    );
                }
                if let Some(t) = tid.as_deref().and_then(|tid| tasks.get_mut(tid)) {
                    match method.as_str() {
                        "tasks/cancel" => {
                            let _ = t.handle_input(l.t, Input::CancelPressed);
                        }
                        "tasks/update" => {
                            if let Some(map) = params["inputResponses"].as_object() {
                                for (key, response) in map {
                                    let _ = t.handle_input(
                                        l.t,
                                        Input::InputAnswered {
                                            key: key.clone(),
                                            response: response.clone().into(),
                                        },
                                    );
                                }
                            }
                        }
                        _ => {}
                    }
                    drain(t, l.at, &mut found);
                }
                pending.insert(id.clone(), (method.clone(), tid, params));
            }
            (
                Message::Response { id, .. } | Message::Error { id, .. },
                Direction::ServerToClient,
            ) => {
                let Some((method, tid, _)) = pending.remove(id) else {
                    continue;
                };
                // A client of this revision never sends a method it does not have.
                if !gate::method_exists(model, &method) {
                    continue;
                }
                let asked = match method.as_str() {
                    "tools/call" => Asked::Call,
                    "tasks/get" => Asked::Tracker(RequestKind::Get),
                    "tasks/cancel" => Asked::Tracker(RequestKind::Cancel),
                    "tasks/update" => Asked::Tracker(RequestKind::Update),
                    "tasks/result" => Asked::Tracker(RequestKind::FetchResult),
                    _ => continue,
                };
                if model == Model::Task2026
                    && asked == Asked::Call
                    && matches!(&l.message, Message::Response { result, .. } if result["resultType"] == "input_required")
                {
                    continue; // an MRTR round: the call goes on (E-50)
                }
                let read = match read_answer(model, asked, &l.message) {
                    Ok(r) => r,
                    Err(e) => {
                        found.push((l.at, Rule::of_unreadable(&e)));
                        continue;
                    }
                };
                found.extend(read.violations.iter().map(|v| (l.at, v.rule)));
                let tracker = match (&read.input, asked) {
                    (Input::TaskCreated { task }, Asked::Call) => {
                        let Some(t) = calls.remove(id) else { continue };
                        tasks.entry(task.task_id.clone()).or_insert(t)
                    }
                    (_, Asked::Call) => match calls.get_mut(id) {
                        Some(t) => t,
                        None => continue,
                    },
                    _ => match tid.as_deref().and_then(|tid| tasks.get_mut(tid)) {
                        Some(t) => t,
                        None => continue,
                    },
                };
                // A tracker refuses what it did not ask for; the codec has spoken already.
                let _ = tracker.handle_input(l.t, read.input);
                drain(tracker, l.at, &mut found);
            }
            (Message::Notification { .. }, Direction::ServerToClient) => {
                match read_notification(model, &l.message) {
                    Ok(Some(read)) => {
                        found.extend(read.violations.iter().map(|v| (l.at, v.rule)));
                        if let Input::TaskNotified { task } = &read.input {
                            if let Some(t) = tasks.get_mut(&task.task_id) {
                                let _ = t.handle_input(l.t, read.input.clone());
                                drain(t, l.at, &mut found);
                            }
                        }
                    }
                    Ok(None) => {}
                    Err(e) => found.push((l.at, Rule::of_unreadable(&e))),
                }
            }
            _ => {}
        }
    }
    server_rules(found)
}

/// Rules E-42, E-45.

#[test]
fn observer_and_client_report_the_same_server_violations() {
    let files = transcripts();
    assert!(files.len() >= 28, "bundled transcripts missing: {files:?}");
    let mut disagreements = Vec::new();
    let mut checked = 0;
    let mut server_findings = 0;
    for f in &files {
        let views = read(f);
        let Some(first) = views.first().filter(|v| !v.is_empty()) else {
            continue; // a job log or an HTTP-only file: no JSON-RPC messages
        };
        // The revision is read once, from the first principal's view (as the checker does).
        let (model, _) = detect_model(
            first
                .iter()
                .map(|l| (header(&l.http, "mcpProtocolVersion"), &l.message)),
        );
        for lines in &views {
            let (o, c) = (observed(model, lines), as_client(model, lines));
            server_findings += o.len();
            if o != c {
                disagreements.push(format!(
                    "{}:\n  observer {o:?}\n  client   {c:?}",
                    f.display()
                ));
            }
        }
        checked += 1;
    }
    assert!(checked >= 28);
    // Not vacuous: the bundled SDK lets a tool store completed + isError (a 2025 MUST).
    assert!(server_findings >= 1);
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
}

/// A 2026 server that breaks most of the rules a server can break, in one session.
const MISBEHAVING_2026: &str = r#"{"seq":1,"t_ms":0,"dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{},"_meta":{"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}}
{"seq":2,"t_ms":10,"dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{"resultType":"task","taskId":"T","status":"working","createdAt":"2026-11-29T15:00:00Z","lastUpdatedAt":"2026-11-29T15:00:00Z","pollIntervalMs":100}}}
{"seq":3,"t_ms":500,"dir":"c2s","msg":{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"T","_meta":{"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}}
{"seq":4,"t_ms":510,"dir":"s2c","msg":{"jsonrpc":"2.0","id":2,"result":{"resultType":"task","taskId":"T","createdAt":"2026-11-29T15:00:00Z","lastUpdatedAt":"2026-11-29T15:00:00Z","ttlMs":null,"status":"input_required","inputRequests":{"k1":{"method":"elicitation/create"}}}}}
{"seq":5,"t_ms":600,"dir":"c2s","msg":{"jsonrpc":"2.0","id":3,"method":"tasks/update","params":{"taskId":"T","inputResponses":{"k1":{"action":"accept"}},"_meta":{"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}}
{"seq":6,"t_ms":610,"dir":"s2c","msg":{"jsonrpc":"2.0","id":3,"result":{"resultType":"complete"}}}
{"seq":7,"t_ms":700,"dir":"c2s","msg":{"jsonrpc":"2.0","id":4,"method":"tasks/get","params":{"taskId":"T","_meta":{"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}}
{"seq":8,"t_ms":710,"dir":"s2c","msg":{"jsonrpc":"2.0","id":4,"result":{"resultType":"complete","taskId":"T","createdAt":"2026-11-29T15:00:00Z","lastUpdatedAt":"2026-11-29T15:00:00Z","ttlMs":null,"status":"working"}}}
{"seq":9,"t_ms":1000,"dir":"c2s","msg":{"jsonrpc":"2.0","id":5,"method":"tasks/get","params":{"taskId":"T","_meta":{"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}}
{"seq":10,"t_ms":1010,"dir":"s2c","msg":{"jsonrpc":"2.0","id":5,"result":{"resultType":"complete","taskId":"T","createdAt":"2026-11-29T15:00:00Z","lastUpdatedAt":"2026-11-29T15:00:00Z","ttlMs":null,"status":"input_required","inputRequests":{"k1":{"method":"elicitation/create"}}}}}
{"seq":11,"t_ms":1200,"dir":"c2s","msg":{"jsonrpc":"2.0","id":6,"method":"tasks/get","params":{"taskId":"T","_meta":{"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}}
{"seq":12,"t_ms":1210,"dir":"s2c","msg":{"jsonrpc":"2.0","id":6,"result":{"resultType":"complete","taskId":"T","createdAt":"2026-11-29T15:00:00Z","lastUpdatedAt":"2026-11-29T15:00:00Z","ttlMs":null,"status":"failed","result":{"content":[],"isError":true}}}}
{"seq":13,"t_ms":1400,"dir":"c2s","msg":{"jsonrpc":"2.0","id":7,"method":"tasks/get","params":{"taskId":"T","_meta":{"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}}
{"seq":14,"t_ms":1410,"dir":"s2c","msg":{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","taskId":"T","createdAt":"2026-11-29T15:00:00Z","lastUpdatedAt":"2026-11-29T15:00:00Z","ttlMs":null,"status":"completed","result":{"content":[]}}}}
"#;

#[test]
fn a_misbehaving_server_is_judged_the_same_way_by_both() {
    let lines = parse_text(MISBEHAVING_2026);
    let (o, c) = (
        observed(Model::Task2026, &lines),
        as_client(Model::Task2026, &lines),
    );
    assert_eq!(o, c);
    let rules: std::collections::BTreeSet<Rule> = o.iter().map(|(_, r)| *r).collect();
    for want in [
        Rule::MissingField,
        Rule::WrongResultType,
        Rule::InputKeyReused,
        Rule::ResultContradictsStatus,
        Rule::TerminalConflict,
    ] {
        assert!(rules.contains(&want), "{want} missing from {o:?}");
    }
}

/// A working task reported with a status the 2026 model does not have: one no model speaks
/// (`started`) and one of the job model (`running`). Both are `unknown_status` (E-42), not a
/// missing field.
#[test]
fn a_status_the_model_does_not_have_is_unknown_status() {
    for status in ["started", "running"] {
        let text = MISBEHAVING_2026
            .lines()
            .take(4)
            .map(|l| {
                l.replace(
                    r#""ttlMs":null,"status":"input_required","inputRequests":{"k1":{"method":"elicitation/create"}}"#,
                    &format!(r#""ttlMs":null,"status":"{status}""#),
                )
            })
            .collect::<Vec<_>>()
            .join("\n");
        let lines = parse_text(&text);
        let (o, c) = (
            observed(Model::Task2026, &lines),
            as_client(Model::Task2026, &lines),
        );
        assert_eq!(o, c, "{status}");
        let at_get: Vec<Rule> = o
            .iter()
            .filter(|(at, _)| *at == 4)
            .map(|(_, r)| *r)
            .collect();
        assert_eq!(at_get, vec![Rule::UnknownStatus], "{status}: {o:?}");
    }
}
