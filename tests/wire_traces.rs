//! Every line of every recorded transcript in `tests/traces/` goes through the codecs.
//!
//! Round-trip rule: the JSON-RPC envelope ([`Message`]) and every wire struct the codecs know
//! (`mcp2026::Task`, `mcp2026::Ack`, `mcp2025::CreateTaskResult`, `mcp2025::Task`,
//! `mcp2025::ListTasksResult`) must give back **the same JSON value**, unknown members included
//! (`_meta` in `meta`, the rest in the flattened `extra` map). The lenient readers must accept the
//! message, produce a view with the same id and status, and report no violation (the recorded
//! servers are well-formed on these messages), and revision detection must never name the wrong
//! revision.

use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::path::{Path, PathBuf};

use longcall::cancel::CancelAnswer;
use longcall::wire::detect::from_message;
use longcall::wire::mcp2026::{CallAnswer, TaskErrorKind};
use longcall::wire::{mcp2025, mcp2026, read_json, Answer, Id, Limits, Message};
use longcall::{Model, Status};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            files(&p, out);
        } else {
            out.push(p);
        }
    }
}

fn round_trip<T: Serialize + DeserializeOwned>(v: &Value) -> T {
    let typed: T = serde_json::from_value(v.clone()).unwrap_or_else(|e| panic!("{e}: {v}"));
    assert_eq!(&serde_json::to_value(&typed).unwrap(), v, "round trip");
    typed
}

/// Rules M-1, M-5, M-8, M-11, M-13.
#[test]
fn every_transcript_line_parses_and_round_trips() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/traces");
    let mut all = Vec::new();
    files(&root, &mut all);
    all.sort();
    let mut kinds: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut lines = 0usize;
    for path in &all {
        let name = path.to_string_lossy().to_string();
        if name.ends_with(".json") {
            read_json(&fs::read(path).unwrap()).unwrap();
            *kinds.entry("summary/checks json").or_default() += 1;
            continue;
        }
        if !name.ends_with(".jsonl") {
            continue;
        }
        let model = if name.contains("2026-07-28") {
            Model::Task2026
        } else {
            Model::Task2025
        };
        // (direction of the request, id) -> (method, params)
        let mut pending: HashMap<(String, Id), (String, Option<Value>)> = HashMap::new();
        for line in fs::read_to_string(path).unwrap().lines() {
            lines += 1;
            let rec: Value = serde_json::from_str(line).unwrap();
            let dir = rec["dir"].as_str().unwrap().to_string();
            let raw = serde_json::to_vec(&rec["msg"]).unwrap();
            let msg = Message::parse(&raw).unwrap_or_else(|e| panic!("{name}: {e}: {line}"));
            assert_eq!(msg.to_value(), rec["msg"], "{name}: envelope round trip");
            *kinds.entry("envelope").or_default() += 1;
            let d = from_message(&msg);
            if let Some(m) = d.model {
                assert_eq!(m, model, "{name}: detection {d:?} on {line}");
                *kinds.entry("detected").or_default() += 1;
            }
            let ctx = |k: &str| format!("{name}: {k}: {line}");
            match &msg {
                Message::Request { id, method, params } => {
                    pending.insert((dir.clone(), id.clone()), (method.clone(), params.clone()));
                }
                Message::Notification { method, params } => {
                    let params = params.as_ref().unwrap_or(&Value::Null);
                    match (model, method.as_str()) {
                        (Model::Task2025, "notifications/tasks/status") => {
                            let t: mcp2025::Task = round_trip(params);
                            let p = mcp2025::read_notification(params).unwrap();
                            assert_eq!(p.value.task_id, t.task_id);
                            assert!(p.violations.is_empty(), "{}", ctx("notification"));
                            *kinds.entry("2025 notifications/tasks/status").or_default() += 1;
                        }
                        (Model::Task2026, "notifications/tasks") => {
                            let _: mcp2026::Task = round_trip(params);
                            mcp2026::read_notification(params).unwrap();
                            *kinds.entry("2026 notifications/tasks").or_default() += 1;
                        }
                        _ => {}
                    }
                }
                Message::Response { id, .. } | Message::Error { id, .. }
                    if !pending.contains_key(&(other(&dir), id.clone())) =>
                {
                    panic!("{}", ctx("response to an unknown request"));
                }
                Message::Response { id, result } => {
                    let (method, params) = pending.remove(&(other(&dir), id.clone())).unwrap();
                    let task_id = params
                        .as_ref()
                        .and_then(|p| p.get("taskId"))
                        .and_then(Value::as_str);
                    match (model, method.as_str()) {
                        (Model::Task2026, "tools/call") => {
                            let p = mcp2026::read_tools_call(result).unwrap();
                            assert!(p.violations.is_empty(), "{}", ctx("tools/call"));
                            if let CallAnswer::Task(view) = p.value {
                                let t: mcp2026::Task = round_trip(result);
                                assert_eq!(view.task_id, t.task_id);
                                assert!(view.created_at_ms.is_some());
                                *kinds.entry("2026 CreateTaskResult").or_default() += 1;
                            } else {
                                *kinds.entry("2026 tools/call plain result").or_default() += 1;
                            }
                        }
                        (Model::Task2026, "tasks/get") => {
                            let t: mcp2026::Task = round_trip(result);
                            let p = mcp2026::read_get(result).unwrap();
                            assert!(p.violations.is_empty(), "{}", ctx("tasks/get"));
                            assert_eq!(p.value.status.as_str(), t.status);
                            assert_eq!(Some(p.value.task_id.as_str()), task_id);
                            // The fast path from bytes gives the same view.
                            let (rid, fast) =
                                mcp2026::parse_get_response(&raw, &Limits::DEFAULT).unwrap();
                            assert_eq!(&rid, id);
                            assert_eq!(fast, Answer::Result(p.clone()));
                            let k = match p.value.status {
                                Status::InputRequired => "2026 tasks/get input_required",
                                Status::Completed => "2026 tasks/get completed",
                                _ => "2026 tasks/get other",
                            };
                            *kinds.entry(k).or_default() += 1;
                        }
                        (Model::Task2026, m @ ("tasks/cancel" | "tasks/update")) => {
                            let _: mcp2026::Ack = round_trip(result);
                            let p = mcp2026::read_ack(result).unwrap();
                            assert!(p.violations.is_empty(), "{}", ctx(m));
                            if m == "tasks/cancel" {
                                assert_eq!(
                                    mcp2026::cancel_answer(&msg).unwrap(),
                                    CancelAnswer::Ack
                                );
                            }
                            *kinds.entry("2026 ack").or_default() += 1;
                        }
                        (Model::Task2025, "tools/call") if result.get("task").is_some() => {
                            let c: mcp2025::CreateTaskResult = round_trip(result);
                            let p = mcp2025::read_create(result).unwrap();
                            assert!(p.violations.is_empty(), "{}", ctx("create"));
                            assert_eq!(p.value.task_id, c.task.task_id);
                            assert_eq!(p.value.status, Status::Working);
                            *kinds.entry("2025 CreateTaskResult").or_default() += 1;
                        }
                        (Model::Task2025, "tasks/get") => {
                            let _: mcp2025::Task = round_trip(result);
                            let p = mcp2025::read_get(result).unwrap();
                            assert!(p.violations.is_empty(), "{}", ctx("tasks/get"));
                            assert_eq!(Some(p.value.task_id.as_str()), task_id);
                            assert!(
                                p.value.created_at_ms.is_some() && !p.value.ttl_ms.is_not_given()
                            );
                            *kinds.entry("2025 tasks/get").or_default() += 1;
                        }
                        (Model::Task2025, "tasks/cancel") => {
                            let _: mcp2025::Task = round_trip(result);
                            let p = mcp2025::read_cancel(result).unwrap();
                            assert!(p.violations.is_empty(), "{}", ctx("tasks/cancel"));
                            assert_eq!(
                                mcp2025::cancel_answer(&msg).unwrap(),
                                CancelAnswer::Task {
                                    status: longcall::status::TaskStatus::Cancelled
                                }
                            );
                            *kinds.entry("2025 cancel answer (task)").or_default() += 1;
                        }
                        (Model::Task2025, "tasks/result") => {
                            let Answer::Result(p) = mcp2025::read_task_result(&msg).unwrap() else {
                                panic!("{}", ctx("tasks/result"))
                            };
                            assert!(p.violations.is_empty(), "{}", ctx("tasks/result"));
                            assert_eq!(p.value.related_task.as_deref(), task_id);
                            assert_eq!(&p.value.result.value, result);
                            *kinds.entry("2025 tasks/result").or_default() += 1;
                        }
                        (Model::Task2025, "tasks/list") => {
                            let l: mcp2025::ListTasksResult = round_trip(result);
                            let p = mcp2025::read_list(result).unwrap();
                            assert!(p.violations.is_empty(), "{}", ctx("tasks/list"));
                            assert_eq!(p.value.tasks.len(), l.tasks.len());
                            *kinds.entry("2025 tasks/list").or_default() += 1;
                        }
                        _ => {}
                    }
                }
                Message::Error { id, error } => {
                    let (method, _) = pending.remove(&(other(&dir), id.clone())).unwrap();
                    match (model, method.as_str()) {
                        (Model::Task2026, _) => {
                            let k = mcp2026::classify_error(error);
                            if error.code == -32021 {
                                assert_eq!(
                                    k,
                                    TaskErrorKind::MissingCapability {
                                        names_tasks_extension: true
                                    }
                                );
                            }
                            if method == "tasks/cancel" {
                                assert_eq!(
                                    mcp2026::cancel_answer(&msg).unwrap(),
                                    CancelAnswer::RpcError { code: error.code }
                                );
                            }
                            *kinds.entry("2026 error").or_default() += 1;
                        }
                        (Model::Task2025, "tasks/cancel") => {
                            assert_eq!(
                                mcp2025::cancel_answer(&msg).unwrap(),
                                CancelAnswer::RpcError { code: -32602 }
                            );
                            *kinds.entry("2025 cancel answer (error)").or_default() += 1;
                        }
                        (Model::Task2025, "tasks/result") => {
                            assert!(matches!(
                                mcp2025::read_task_result(&msg).unwrap(),
                                Answer::Error(_)
                            ));
                            *kinds.entry("2025 tasks/result error").or_default() += 1;
                        }
                        _ => *kinds.entry("2025 other error").or_default() += 1,
                    }
                }
            }
        }
    }
    println!("{lines} lines: {kinds:#?}");
    assert_eq!(
        kinds.get("envelope").copied(),
        Some(lines),
        "every line is a message"
    );
    for (kind, min) in [
        ("envelope", 500),
        ("2026 CreateTaskResult", 15),
        ("2026 tools/call plain result", 3),
        ("2026 tasks/get input_required", 3),
        ("2026 tasks/get completed", 8),
        ("2026 tasks/get other", 30),
        ("2026 ack", 10),
        ("2026 error", 8),
        ("2025 CreateTaskResult", 10),
        ("2025 tasks/get", 40),
        ("2025 cancel answer (task)", 2),
        ("2025 cancel answer (error)", 3),
        ("2025 tasks/result", 6),
        ("2025 tasks/result error", 3),
        ("2025 tasks/list", 1),
        ("2025 notifications/tasks/status", 30),
        ("summary/checks json", 3),
    ] {
        let n = kinds.get(kind).copied().unwrap_or(0);
        assert!(n >= min, "{kind}: {n} < {min}");
    }
}

fn other(dir: &str) -> String {
    if dir == "c2s" { "s2c" } else { "c2s" }.to_string()
}

/// Every answer in the transcripts read through [`read_result`], as an SDK client hands over its
/// `result` with the envelope taken off, means what the whole answer means: the same input and
/// the same violations, for the request each answer belongs to.
#[test]
fn every_recorded_result_reads_as_its_whole_answer() {
    use longcall::endpoint::{read_answer, read_result, Asked};
    use longcall::tracker::RequestKind;

    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/traces");
    let mut all = Vec::new();
    files(&root, &mut all);
    all.sort();
    let mut read = 0usize;
    for path in all
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
    {
        let name = path.to_string_lossy().to_string();
        let model = if name.contains("2026-07-28") {
            Model::Task2026
        } else {
            Model::Task2025
        };
        // The method of each request by its id, so each answer is read for its request.
        let mut asked: HashMap<String, Asked> = HashMap::new();
        for line in fs::read_to_string(path).unwrap().lines() {
            let entry: Value = serde_json::from_str(line).unwrap();
            let msg = &entry["msg"];
            let id = msg["id"].to_string();
            match msg["method"].as_str() {
                Some("tools/call") => {
                    asked.insert(id, Asked::Call);
                }
                Some("tasks/get") => {
                    asked.insert(id, Asked::Tracker(RequestKind::Get));
                }
                Some("tasks/cancel") => {
                    asked.insert(id, Asked::Tracker(RequestKind::Cancel));
                }
                Some(_) => {}
                None => {
                    let (Some(result), Some(&a)) = (msg.get("result"), asked.get(&id)) else {
                        continue;
                    };
                    let message = Message::from_value(msg.clone()).unwrap();
                    let whole = read_answer(model, a, &message);
                    let alone = read_result(model, a, result.clone());
                    match (whole, alone) {
                        (Ok(w), Ok(r)) => {
                            assert_eq!(r.id, Id::Null, "{name}: {line}");
                            assert_eq!(r.input, w.input, "{name}: {line}");
                            assert_eq!(r.violations, w.violations, "{name}: {line}");
                        }
                        (Err(w), Err(r)) => assert_eq!(r, w, "{name}: {line}"),
                        (w, r) => panic!("{name}: {line}: whole {w:?}, alone {r:?}"),
                    }
                    read += 1;
                }
            }
        }
    }
    assert!(read >= 20, "only {read} answers read");
}

/// Rules M-19: a task of the other revision, read as this one, is reported naming that revision,
/// and its spellings are never used.
#[test]
fn a_task_of_the_other_revision_says_so() {
    let times = r#""createdAt":"2026-11-30T10:00:00Z","lastUpdatedAt":"2026-11-30T10:00:00Z""#;
    let as_2025: Value = serde_json::from_str(&format!(
        r#"{{"taskId":"t","status":"working",{times},"ttl":60000,"pollInterval":1000,"resultType":"complete"}}"#
    ))
    .unwrap();
    let read = mcp2026::read_get(&as_2025).unwrap();
    assert_eq!(
        read.value.poll_interval_ms, None,
        "the 2025 spelling is not used"
    );
    let said: Vec<&str> = read.violations.iter().map(|v| v.detail.as_str()).collect();
    assert_eq!(said.len(), 2, "{said:?}");
    assert!(said[0].starts_with("ttlMs is missing"), "{said:?}");
    assert!(said[1].starts_with("pollIntervalMs is missing"), "{said:?}");
    assert!(
        said.iter()
            .all(|d| d.contains("task-2025's ttl, pollInterval")),
        "{said:?}"
    );

    let as_2026: Value = serde_json::from_str(&format!(
        r#"{{"taskId":"t","status":"working",{times},"ttlMs":null,"pollIntervalMs":500}}"#
    ))
    .unwrap();
    let read = mcp2025::read_get(&as_2026).unwrap();
    assert_eq!(read.value.poll_interval_ms, None);
    let said: Vec<&str> = read.violations.iter().map(|v| v.detail.as_str()).collect();
    assert!(
        said.iter()
            .any(|d| d.starts_with("ttl is missing") && d.contains("task-2026's")),
        "{said:?}"
    );

    // The task's own spelling beside the other's: nothing to say.
    let both: Value = serde_json::from_str(&format!(
        r#"{{"taskId":"t","status":"working",{times},"ttlMs":5,"ttl":5,"pollIntervalMs":7,"resultType":"complete"}}"#
    ))
    .unwrap();
    let read = mcp2026::read_get(&both).unwrap();
    assert_eq!(read.value.poll_interval_ms, Some(7));
    assert!(read.violations.is_empty(), "{:?}", read.violations);
}
