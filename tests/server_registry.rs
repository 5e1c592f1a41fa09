//! The reference MCP task server: every rule of `server::registry`, table-driven where it is a
//! table.

use longcall::cancel::{classify_answer, CancelVerdict};
use longcall::server::{
    CancelMode, CancelReply, RegistryConfig, ResultAnswer, TaskRegistry, WriteOutcome,
    CANCELLED_RESULT_CODE, TASK_NOT_FOUND_MESSAGE, TTL_EXPIRED_CODE, TTL_EXPIRED_MESSAGE,
};
use longcall::snapshot::{restore, save};
use longcall::view::{RpcError, ToolResult};
use longcall::{Model, Status};
use serde_json::{json, Value};

const MODELS: [Model; 2] = [Model::Task2026, Model::Task2025];

fn reg(model: Model) -> TaskRegistry {
    TaskRegistry::new(model, RegistryConfig::default()).unwrap()
}

fn reg_with(model: Model, f: impl FnOnce(&mut RegistryConfig)) -> TaskRegistry {
    let mut c = RegistryConfig::default();
    f(&mut c);
    TaskRegistry::new(model, c).unwrap()
}

fn tool(is_error: bool) -> ToolResult {
    ToolResult {
        is_error,
        value: json!({"content": [{"type": "text", "text": "hi"}], "isError": is_error}).into(),
    }
}

fn rpc(code: i64) -> RpcError {
    RpcError {
        code,
        message: "boom".into(),
        data: None,
    }
}

fn elicit() -> Value {
    json!({"method": "elicitation/create", "params": {"message": "ok?"}})
}

#[test]
fn config_is_validated() {
    let e = TaskRegistry::new(Model::Job, RegistryConfig::default()).unwrap_err();
    assert_eq!(e.code(), "wrong_model");
    let c = RegistryConfig {
        page_size: 0,
        ..RegistryConfig::default()
    };
    assert_eq!(
        TaskRegistry::new(Model::Task2025, c).unwrap_err().code(),
        "invalid_config"
    );
}

/// Rules M-1.
#[test]
fn create_is_strongly_consistent_and_starts_working() {
    for model in MODELS {
        let mut r = reg(model);
        let v = r.create(10, "alice", "t1", None).unwrap();
        assert_eq!(v.status, Status::Working);
        assert_eq!(v.created_at_ms, Some(10));
        assert_eq!(v.last_updated_at_ms, Some(10));
        assert_eq!(v.ttl_ms, longcall::view::Ttl::Ms(300_000));
        assert_eq!(v.poll_interval_ms, Some(1_000));
        let got = r.get(10, "alice", "t1").unwrap();
        assert_eq!(got, v, "{model}");
    }
}

#[test]
fn create_errors_are_typed() {
    let mut r = reg_with(Model::Task2026, |c| c.max_tasks_per_principal = Some(1));
    r.create(0, "alice", "t1", None).unwrap();
    assert_eq!(
        r.create(0, "bob", "t1", None).unwrap_err().code(),
        "duplicate"
    );
    assert_eq!(
        r.create(0, "alice", "", None).unwrap_err().code(),
        "invalid_input"
    );
    assert_eq!(
        r.create(0, "", "t9", None).unwrap_err().code(),
        "invalid_input"
    );
    assert_eq!(
        r.create(0, "alice", "t2", None).unwrap_err().code(),
        "limit_reached"
    );
    // Another principal has its own budget; a settled task frees a slot.
    r.create(0, "bob", "t3", None).unwrap();
    r.complete(1, "t1", tool(false));
    r.create(2, "alice", "t2", None).unwrap();
}

#[test]
fn error_codes_list_the_new_variants() {
    for code in ["duplicate", "limit_reached"] {
        assert!(longcall::error::ERROR_CODES.contains(&code));
    }
}

/// Worker writes, then the derived status and which payload `get` shows, per revision.
///
/// Rules M-2.
#[test]
fn status_is_derived_from_state() {
    #[derive(Clone, Copy)]
    enum W {
        Ask(&'static str),
        Answer(&'static str),
        Done(bool),
        Fail,
        Stop,
    }
    use Status::*;
    use W::*;
    // (ops, status 2026, status 2025, shows: inputs / result / error in 2026 `get`)
    #[allow(clippy::type_complexity)]
    let rows: &[(&[W], Status, Status, (usize, bool, bool))] = &[
        (&[], Working, Working, (0, false, false)),
        (&[Ask("a")], InputRequired, InputRequired, (1, false, false)),
        (
            &[Ask("a"), Ask("b")],
            InputRequired,
            InputRequired,
            (2, false, false),
        ),
        (
            &[Ask("a"), Ask("b"), Answer("a")],
            InputRequired,
            InputRequired,
            (1, false, false),
        ),
        (
            &[Ask("a"), Answer("a")],
            Working,
            Working,
            (0, false, false),
        ),
        (&[Done(false)], Completed, Completed, (0, true, false)),
        (&[Done(true)], Completed, Failed, (0, true, false)),
        (&[Fail], Failed, Failed, (0, false, true)),
        (&[Stop], Cancelled, Cancelled, (0, false, false)),
        (
            &[Ask("a"), Done(false)],
            Completed,
            Completed,
            (0, true, false),
        ),
        (&[Ask("a"), Fail], Failed, Failed, (0, false, true)),
        (&[Done(false), Fail], Completed, Completed, (0, true, false)),
        (&[Fail, Done(false)], Failed, Failed, (0, false, true)),
        (
            &[Stop, Done(false)],
            Cancelled,
            Cancelled,
            (0, false, false),
        ),
        (&[Done(true), Stop], Completed, Failed, (0, true, false)),
    ];
    for (i, (ops, s26, s25, (inputs, result, error))) in rows.iter().enumerate() {
        for model in MODELS {
            let mut r = reg(model);
            r.create(0, "p", "t", None).unwrap();
            for (n, op) in ops.iter().enumerate() {
                let now = n as u64 + 1;
                match *op {
                    Ask(k) => {
                        r.request_input(now, "t", k, elicit()).unwrap();
                    }
                    Answer(k) => {
                        r.update(now, "p", "t", vec![(k.into(), json!({"action": "accept"}))])
                            .unwrap();
                    }
                    Done(e) => {
                        r.complete(now, "t", tool(e));
                    }
                    Fail => {
                        r.fail(now, "t", rpc(-32000));
                    }
                    Stop => {
                        r.settle_cancelled(now, "t");
                    }
                }
            }
            let v = r.get(100, "p", "t").unwrap();
            let want = if model == Model::Task2026 { *s26 } else { *s25 };
            assert_eq!(v.status, want, "row {i} {model}");
            if model == Model::Task2026 {
                assert_eq!(v.input_requests.len(), *inputs, "row {i}");
                assert_eq!(v.result.is_some(), *result, "row {i}");
                assert_eq!(v.error.is_some(), *error, "row {i}");
            } else {
                // The 2025 Task object has no payload fields.
                assert!(v.input_requests.is_empty() && v.result.is_none() && v.error.is_none());
            }
        }
    }
}

/// Rules L-6.
#[test]
fn first_terminal_write_wins_and_is_reported() {
    for model in MODELS {
        let mut r = reg(model);
        r.create(0, "p", "t", None).unwrap();
        assert_eq!(r.fail(1, "t", rpc(-32000)), WriteOutcome::Applied);
        let before = r.get(2, "p", "t").unwrap();
        assert_eq!(
            r.complete(3, "t", tool(false)),
            WriteOutcome::IgnoredTerminal {
                status: Status::Failed
            }
        );
        assert_eq!(
            r.settle_cancelled(3, "t"),
            WriteOutcome::IgnoredTerminal {
                status: Status::Failed
            }
        );
        assert_eq!(
            r.set_status_message(3, "t", Some("x".into())),
            WriteOutcome::IgnoredTerminal {
                status: Status::Failed
            }
        );
        assert_eq!(
            r.request_input(3, "t", "k", elicit()).unwrap(),
            WriteOutcome::IgnoredTerminal {
                status: Status::Failed
            }
        );
        assert_eq!(r.get(4, "p", "t").unwrap(), before, "{model}");
        assert_eq!(r.complete(3, "nope", tool(false)), WriteOutcome::UnknownId);
    }
}

/// Rules I-5, I-4.
#[test]
fn input_keys_are_unique_over_the_task_life() {
    let mut r = reg(Model::Task2026);
    r.create(0, "p", "t", None).unwrap();
    r.request_input(1, "t", "a", elicit()).unwrap();
    r.request_input(1, "t", "b", elicit()).unwrap();
    assert_eq!(
        r.request_input(2, "t", "a", elicit()).unwrap_err().code(),
        "duplicate"
    );
    // Partial answer: stays input_required with the remaining key; unknown keys are ignored.
    let ack = r
        .update(
            3,
            "p",
            "t",
            vec![("a".into(), json!(1)), ("zzz".into(), json!(2))],
        )
        .unwrap();
    assert_eq!(ack.accepted, vec!["a".to_string()]);
    assert_eq!(ack.ignored, vec!["zzz".to_string()]);
    let v = r.get(4, "p", "t").unwrap();
    assert_eq!(v.status, Status::InputRequired);
    assert_eq!(v.input_requests.len(), 1);
    assert_eq!(v.input_requests[0].key, "b");
    // Answering "a" again is ignored; reusing "a" after its answer is still a duplicate.
    let ack = r.update(5, "p", "t", vec![("a".into(), json!(9))]).unwrap();
    assert!(ack.accepted.is_empty());
    assert_eq!(
        r.request_input(6, "t", "a", elicit()).unwrap_err().code(),
        "duplicate"
    );
    assert_eq!(r.take_input_responses("t"), vec![("a".into(), json!(1))]);
    assert!(r.take_input_responses("t").is_empty());
    r.update(7, "p", "t", vec![("b".into(), json!(3))]).unwrap();
    assert_eq!(r.get(8, "p", "t").unwrap().status, Status::Working);
    assert_eq!(r.take_input_responses("t"), vec![("b".into(), json!(3))]);
    assert_eq!(
        r.request_input(9, "t", "", elicit()).unwrap_err().code(),
        "invalid_input"
    );
    // A request the client could not read is refused, and uses no key (E-56's rule).
    for request in [json!("please"), json!([1, 2]), json!({"params": {}})] {
        assert_eq!(
            r.request_input(9, "t", "c", request).unwrap_err().code(),
            "invalid_input"
        );
    }
    assert!(r.request_input(9, "t", "c", elicit()).unwrap().is_applied());
}

/// Rules W-2, M-10.
#[test]
fn another_principal_is_answered_exactly_like_an_unknown_id() {
    for model in MODELS {
        let mut r = reg(model);
        r.create(0, "alice", "t", None).unwrap();
        r.request_input(1, "t", "k", elicit()).unwrap();
        let before = save(&r).unwrap();
        let nf = RpcError {
            code: -32602,
            message: TASK_NOT_FOUND_MESSAGE.into(),
            data: None,
        };
        for id in ["t", "unknown"] {
            assert_eq!(r.get(2, "bob", id).unwrap_err(), nf);
            assert_eq!(r.cancel(2, "bob", id).unwrap_err(), nf);
            assert_eq!(
                r.update(2, "bob", id, vec![("k".into(), json!(1))])
                    .unwrap_err(),
                nf
            );
            if model == Model::Task2025 {
                assert_eq!(r.result(2, "bob", id).unwrap_err(), nf);
            }
        }
        if model == Model::Task2025 {
            assert!(r.list(2, "bob", None).unwrap().tasks.is_empty());
        }
        assert_eq!(
            save(&r).unwrap(),
            before,
            "{model}: a foreign call changed state"
        );
    }
}

/// Rules C-2, C-3, M-3.
#[test]
fn cancel_2026_cooperative_acks_and_clears_inputs() {
    let mut r = reg(Model::Task2026);
    r.create(0, "p", "t", None).unwrap();
    r.request_input(1, "t", "k", elicit()).unwrap();
    let ans = r.cancel(2, "p", "t");
    assert_eq!(ans, Ok(CancelReply::Ack));
    assert_eq!(
        classify_answer(Model::Task2026, CancelReply::cancel_answer(&ans)),
        CancelVerdict::Acknowledged
    );
    let v = r.get(3, "p", "t").unwrap();
    assert_eq!(v.status, Status::Working, "reads working until settled");
    assert!(v.input_requests.is_empty());
    assert_eq!(v.last_updated_at_ms, Some(2));
    assert!(r.cancel_requested("t"));
    // New input requests after the cancel are moot.
    assert_eq!(
        r.request_input(4, "t", "k2", elicit()).unwrap(),
        WriteOutcome::IgnoredCancelRequested
    );
    // The update for the dropped key is ignored.
    let ack = r.update(4, "p", "t", vec![("k".into(), json!(1))]).unwrap();
    assert_eq!(ack.ignored, vec!["k".to_string()]);
    // Cancellation is not a promise: the work may finish first.
    assert!(r.complete(5, "t", tool(false)).is_applied());
    assert_eq!(r.get(6, "p", "t").unwrap().status, Status::Completed);
    // Cancel on a terminal task: the same ack, nothing changes.
    let before = r.get(7, "p", "t").unwrap();
    assert_eq!(r.cancel(8, "p", "t"), Ok(CancelReply::Ack));
    assert_eq!(r.get(9, "p", "t").unwrap(), before);
    // Unknown id: -32602.
    let e = r.cancel(9, "p", "nope");
    assert_eq!(
        classify_answer(Model::Task2026, CancelReply::cancel_answer(&e)),
        CancelVerdict::NotFound
    );
}

#[test]
fn cancel_2026_immediate_settles_cancelled_at_once() {
    // The conformance fixture `slow_compute` must end `cancelled` when cancelled while running.
    let mut r = reg_with(Model::Task2026, |c| c.cancel = CancelMode::Immediate);
    r.create(0, "p", "slow", None).unwrap();
    assert_eq!(r.cancel(1, "p", "slow"), Ok(CancelReply::Ack));
    assert_eq!(r.get(1, "p", "slow").unwrap().status, Status::Cancelled);
    assert_eq!(
        r.complete(2, "slow", tool(false)),
        WriteOutcome::IgnoredTerminal {
            status: Status::Cancelled
        }
    );
    assert_eq!(r.cancel(3, "p", "slow"), Ok(CancelReply::Ack));
}

/// Rules C-5, C-6.
#[test]
fn cancel_2025_moves_to_cancelled_before_answering() {
    let mut r = reg(Model::Task2025);
    r.create(0, "p", "t", None).unwrap();
    let ans = r.cancel(5, "p", "t");
    match &ans {
        Ok(CancelReply::Task { task }) => {
            assert_eq!(task.status, Status::Cancelled);
            assert_eq!(task.last_updated_at_ms, Some(5));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        classify_answer(Model::Task2025, CancelReply::cancel_answer(&ans)),
        CancelVerdict::Cancelled
    );
    // It stays cancelled even if the work finishes.
    assert!(!r.complete(6, "t", tool(false)).is_applied());
    assert_eq!(r.get(7, "p", "t").unwrap().status, Status::Cancelled);
    // Cancelling a terminal task is -32602.
    let e = r.cancel(8, "p", "t");
    assert_eq!(e.as_ref().unwrap_err().code, -32602);
    assert!(e.as_ref().unwrap_err().message.contains("cancelled"));
    assert_eq!(
        classify_answer(Model::Task2025, CancelReply::cancel_answer(&e)),
        CancelVerdict::Rejected
    );
    r.create(9, "p", "t2", None).unwrap();
    r.complete(10, "t2", tool(false));
    assert_eq!(r.cancel(11, "p", "t2").unwrap_err().code, -32602);
}

/// Rules M-9, M-7.
#[test]
fn result_2025_answers_or_blocks() {
    let mut r = reg(Model::Task2025);
    for id in ["ok", "tool_err", "rpc_err", "cancel", "wait"] {
        r.create(0, "p", id, None).unwrap();
    }
    r.complete(1, "ok", tool(false));
    r.complete(1, "tool_err", tool(true));
    r.fail(1, "rpc_err", rpc(-32000));
    r.cancel(1, "p", "cancel").unwrap();
    r.request_input(1, "wait", "k", elicit()).unwrap();
    assert_eq!(
        r.result(2, "p", "ok").unwrap(),
        ResultAnswer::Result {
            result: tool(false)
        }
    );
    // 2025: isError makes the task failed, and tasks/result returns the CallToolResult.
    assert_eq!(r.get(2, "p", "tool_err").unwrap().status, Status::Failed);
    assert_eq!(
        r.result(2, "p", "tool_err").unwrap(),
        ResultAnswer::Result { result: tool(true) }
    );
    let e = r.result(2, "p", "rpc_err").unwrap();
    assert_eq!(e.rpc_error(), Some(rpc(-32000)));
    let c = r.result(2, "p", "cancel").unwrap();
    assert_eq!(c, ResultAnswer::Cancelled);
    assert_eq!(c.rpc_error().unwrap().code, CANCELLED_RESULT_CODE);
    match r.result(2, "p", "wait").unwrap() {
        ResultAnswer::Blocked {
            status,
            input_requests,
        } => {
            assert_eq!(status, Status::InputRequired);
            assert_eq!(input_requests.len(), 1);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(r.result(2, "p", "nope").unwrap_err().code, -32602);
}

/// Rules M-4.
#[test]
fn removed_methods_are_method_not_found_on_2026() {
    let mut r = reg(Model::Task2026);
    r.create(0, "p", "t", None).unwrap();
    assert_eq!(r.result(1, "p", "t").unwrap_err().code, -32601);
    assert_eq!(r.list(1, "p", None).unwrap_err().code, -32601);
}

/// Rules M-9, W-3.
#[test]
fn list_2025_pages_stably_and_only_the_callers_tasks() {
    let mut r = reg_with(Model::Task2025, |c| c.page_size = 2);
    for i in 0..5 {
        let p = if i == 2 { "bob" } else { "alice" };
        r.create(i, p, &format!("t{i}"), None).unwrap();
    }
    let p1 = r.list(10, "alice", None).unwrap();
    let ids: Vec<_> = p1.tasks.iter().map(|t| t.task_id.as_str()).collect();
    assert_eq!(ids, ["t0", "t1"]);
    // A task created between pages lands at the end; a deleted one vanishes.
    r.create(11, "alice", "a_new", None).unwrap();
    let p2 = r.list(12, "alice", p1.next_cursor.as_deref()).unwrap();
    let ids: Vec<_> = p2.tasks.iter().map(|t| t.task_id.as_str()).collect();
    assert_eq!(ids, ["t3", "t4"]);
    let p3 = r.list(13, "alice", p2.next_cursor.as_deref()).unwrap();
    let ids: Vec<_> = p3.tasks.iter().map(|t| t.task_id.as_str()).collect();
    assert_eq!(ids, ["a_new"]);
    assert_eq!(p3.next_cursor, None);
    let bob = r.list(13, "bob", None).unwrap();
    assert_eq!(bob.tasks.len(), 1);
    for bad in ["x", "-1", "999", "01", ""] {
        assert_eq!(
            r.list(14, "alice", Some(bad)).unwrap_err().code,
            -32602,
            "{bad:?}"
        );
    }
}

/// Rules M-15.
#[test]
fn ttl_2026_fails_unsettled_tasks_then_retention_purges() {
    let mut r = reg_with(Model::Task2026, |c| {
        c.ttl_ms = Some(1_000);
        c.retention_ms = Some(500);
    });
    r.create(0, "p", "slow", None).unwrap();
    r.create(0, "p", "fast", None).unwrap();
    r.complete(200, "fast", tool(false));
    assert_eq!(r.poll_timeout(), Some(700)); // fast: retention from its terminal write
    let s = r.handle_timeout(699);
    assert!(s.failed.is_empty() && s.purged.is_empty());
    // Still readable shortly after it finished (no early expiry).
    assert_eq!(r.get(699, "p", "fast").unwrap().status, Status::Completed);
    let s = r.handle_timeout(700);
    assert_eq!(s.purged, vec!["fast".to_string()]);
    assert_eq!(r.get(700, "p", "fast").unwrap_err().code, -32602);
    assert_eq!(r.poll_timeout(), Some(1_000));
    let s = r.handle_timeout(1_000);
    assert_eq!(s.failed, vec!["slow".to_string()]);
    let v = r.get(1_001, "p", "slow").unwrap();
    assert_eq!(v.status, Status::Failed);
    let err = v.error.unwrap();
    assert_eq!(
        (err.code, err.message.as_str()),
        (TTL_EXPIRED_CODE, TTL_EXPIRED_MESSAGE)
    );
    assert_eq!(v.last_updated_at_ms, Some(1_000));
    // A late worker write is ignored, not an error.
    assert_eq!(
        r.complete(1_002, "slow", tool(false)),
        WriteOutcome::IgnoredTerminal {
            status: Status::Failed
        }
    );
    assert_eq!(r.poll_timeout(), Some(1_500));
    r.handle_timeout(1_500);
    assert!(r.is_empty());
    assert_eq!(r.poll_timeout(), None);
}

/// M-15: a task a lookup expired is still named by the next sweep, which the host reads to stop
/// its worker, and that sweep is due at once; named once, and not as failed once purged.
#[test]
fn a_task_expired_by_a_lookup_is_named_by_the_next_sweep() {
    let mut r = reg_with(Model::Task2026, |c| {
        c.ttl_ms = Some(100);
        c.retention_ms = Some(1_000);
    });
    r.create(0, "p", "x", None).unwrap();
    r.create(0, "p", "y", None).unwrap();
    assert_eq!(r.get(150, "p", "x").unwrap().status, Status::Failed);
    assert_eq!(r.poll_timeout(), Some(100), "due since y's deadline");
    let s = r.handle_timeout(150);
    assert_eq!(s.failed, vec!["x".to_string(), "y".to_string()]);
    assert!(s.purged.is_empty());
    assert!(r.handle_timeout(151).failed.is_empty(), "named once");
    assert_eq!(r.poll_timeout(), Some(1_150));

    // Expired by a worker write, then kept across a snapshot: the restored registry names it.
    r.create(200, "p", "z", None).unwrap();
    assert_eq!(
        r.complete(400, "z", tool(false)),
        WriteOutcome::IgnoredTerminal {
            status: Status::Failed
        }
    );
    assert_eq!(r.poll_timeout(), Some(400), "due when it failed");
    let mut back: TaskRegistry = restore(&save(&r).unwrap()).unwrap();
    assert_eq!(back, r);
    assert_eq!(back.handle_timeout(400).failed, vec!["z".to_string()]);

    // Purged before any sweep (retention over): named as purged only.
    let mut r = reg_with(Model::Task2026, |c| {
        c.ttl_ms = Some(100);
        c.retention_ms = Some(50);
    });
    r.create(0, "p", "x", None).unwrap();
    assert!(r.get(120, "p", "x").is_ok());
    let s = r.handle_timeout(200);
    assert_eq!((s.failed.len(), s.purged), (0, vec!["x".to_string()]));
}

#[test]
fn ttl_is_applied_lazily_by_every_method() {
    let mut r = reg_with(Model::Task2026, |c| {
        c.ttl_ms = Some(100);
        c.retention_ms = None;
    });
    r.create(0, "p", "t", None).unwrap();
    // No sweep: get, cancel and writes all see the expiry.
    assert_eq!(r.get(100, "p", "t").unwrap().status, Status::Failed);
    assert_eq!(r.cancel(101, "p", "t"), Ok(CancelReply::Ack));
    r.create(0, "p", "u", None).unwrap();
    assert!(!r.complete(150, "u", tool(false)).is_applied());
    // Unlimited retention: a terminal task stays.
    assert_eq!(r.handle_timeout(1 << 40).purged.len(), 0);
    assert_eq!(r.poll_timeout(), None);
}

/// Rules M-15.
#[test]
fn ttl_2025_deletes_regardless_of_status() {
    let mut r = reg_with(Model::Task2025, |c| {
        c.ttl_ms = Some(1_000);
        c.max_ttl_ms = Some(5_000);
        c.retention_ms = None;
    });
    let v = r.create(0, "p", "asked", Some(60_000)).unwrap();
    assert_eq!(
        v.ttl_ms,
        longcall::view::Ttl::Ms(5_000),
        "requested ttl is capped"
    );
    let v = r.create(0, "p", "done", Some(2_000)).unwrap();
    assert_eq!(v.ttl_ms, longcall::view::Ttl::Ms(2_000));
    r.create(0, "p", "default", None).unwrap();
    r.complete(10, "done", tool(false));
    let s = r.handle_timeout(2_000);
    assert_eq!(s.purged, vec!["default".to_string(), "done".to_string()]);
    assert!(s.failed.is_empty());
    assert_eq!(r.get(2_000, "p", "done").unwrap_err().code, -32602);
    assert_eq!(r.result(2_000, "p", "default").unwrap_err().code, -32602);
    assert_eq!(r.poll_timeout(), Some(5_000));
    // 2026 ignores a requested ttl.
    let mut r26 = reg(Model::Task2026);
    assert_eq!(
        r26.create(0, "p", "t", Some(1)).unwrap().ttl_ms,
        longcall::view::Ttl::Ms(300_000)
    );
}

#[test]
fn unlimited_ttl_has_no_deadline() {
    let mut r = reg_with(Model::Task2026, |c| c.ttl_ms = None);
    let v = r.create(0, "p", "t", None).unwrap();
    assert_eq!(v.ttl_ms, longcall::view::Ttl::Unlimited);
    assert_eq!(r.poll_timeout(), None);
    assert!(r.handle_timeout(u64::MAX).failed.is_empty());
}

/// Rules M-16.
#[test]
fn last_updated_at_moves_on_observable_changes_only() {
    let mut r = reg(Model::Task2026);
    r.create(0, "p", "t", None).unwrap();
    let at = |r: &mut TaskRegistry, now| r.get(now, "p", "t").unwrap().last_updated_at_ms;
    assert_eq!(at(&mut r, 5), Some(0), "a get is a pure read");
    r.set_status_message(10, "t", Some("half way".into()));
    assert_eq!(at(&mut r, 11), Some(10));
    r.set_status_message(12, "t", Some("half way".into()));
    assert_eq!(at(&mut r, 13), Some(10), "same message: no change");
    r.request_input(20, "t", "k", elicit()).unwrap();
    assert_eq!(at(&mut r, 21), Some(20));
    r.update(30, "p", "t", vec![("nope".into(), json!(1))])
        .unwrap();
    assert_eq!(at(&mut r, 31), Some(20), "ignored keys: no change");
    r.update(40, "p", "t", vec![("k".into(), json!(1))])
        .unwrap();
    assert_eq!(at(&mut r, 41), Some(40));
    // A host clock that steps back never moves lastUpdatedAt backwards.
    r.set_status_message(35, "t", None);
    assert_eq!(at(&mut r, 42), Some(40));
    r.complete(50, "t", tool(false));
    assert_eq!(at(&mut r, 51), Some(50));
}

#[test]
fn seeded_2026_task_via_writes_at_creation_time() {
    let mut r = reg(Model::Task2026);
    r.create(0, "p", "t", None).unwrap();
    r.complete(0, "t", tool(false));
    let v = r.peek("t").unwrap();
    assert_eq!(v.status, Status::Completed);
    assert!(v.result.is_some());
    assert_eq!(r.peek("nope"), None);
}

/// Rules S-4.
#[test]
fn snapshot_restores_exactly() {
    for model in MODELS {
        let mut r = reg(model);
        r.create(0, "p", "a", None).unwrap();
        r.create(1, "q", "b", None).unwrap();
        r.request_input(2, "a", "k", elicit()).unwrap();
        r.update(3, "p", "a", vec![("k".into(), json!({"x": 1}))])
            .unwrap();
        r.fail(4, "b", rpc(-32000));
        let text = save(&r).unwrap();
        let back: TaskRegistry = restore(&text).unwrap();
        assert_eq!(back, r);
        assert_eq!(save(&back).unwrap(), text);
        assert_eq!(
            restore::<longcall::server::JobBook>(&text)
                .unwrap_err()
                .code(),
            "snapshot_invalid"
        );
    }
}

/// Rule S-9: a registry restored at server start names the tasks whose work ended with the old
/// process (working or waiting for input, never settled ones), and takes the configuration the
/// new process starts with, for the tasks created after.
#[test]
fn a_restored_registry_names_its_unsettled_tasks_and_takes_a_new_config() {
    for model in MODELS {
        let mut r = reg_with(model, |c| c.ttl_ms = Some(60_000));
        for id in ["a", "b", "c", "d"] {
            r.create(0, "p", id, None).unwrap();
        }
        r.request_input(1, "b", "k", elicit()).unwrap();
        assert!(matches!(
            r.complete(2, "c", tool(false)),
            WriteOutcome::Applied
        ));
        assert!(matches!(r.fail(2, "d", rpc(-32603)), WriteOutcome::Applied));
        let mut back: TaskRegistry = restore(&save(&r).unwrap()).unwrap();
        assert_eq!(back.unsettled().collect::<Vec<_>>(), ["a", "b"], "{model}");

        let mut config = back.config().clone();
        config.ttl_ms = Some(5_000);
        back.set_config(config).unwrap();
        assert_eq!(
            back.create(3, "p", "e", None).unwrap().ttl_ms,
            longcall::view::Ttl::Ms(5_000)
        );
        assert_eq!(
            back.peek("a").unwrap().ttl_ms,
            longcall::view::Ttl::Ms(60_000),
            "stored tasks keep theirs"
        );
        let mut zero = back.config().clone();
        zero.page_size = 0;
        assert_eq!(back.set_config(zero).unwrap_err().code(), "invalid_config");
        assert_eq!(
            back.config().ttl_ms,
            Some(5_000),
            "a refused config changes nothing"
        );
    }
}

/// Rules O-2, O-12: the flag a worker passes and the result a client reads never disagree. A
/// result is a tool error when either says so: 2025 `failed`, and its object says `isError`.
#[test]
fn a_tool_error_flag_and_its_result_agree() {
    let said = |r: &mut TaskRegistry, id: &str| match r.result(2, "p", id).unwrap() {
        ResultAnswer::Result { result } => {
            (result.is_error, result.value.as_value()["isError"].clone())
        }
        other => panic!("{other:?}"),
    };
    let mut r = reg(Model::Task2025);
    for id in ["flag_only", "value_only"] {
        r.create(0, "p", id, None).unwrap();
    }
    let hi = json!({"content": [{"type": "text", "text": "hi"}]});
    r.complete(
        1,
        "flag_only",
        ToolResult {
            is_error: true,
            value: hi.clone().into(),
        },
    );
    let mut value_only = hi.clone();
    value_only["isError"] = json!(true);
    r.complete(
        1,
        "value_only",
        ToolResult {
            is_error: false,
            value: value_only.into(),
        },
    );
    for id in ["flag_only", "value_only"] {
        assert_eq!(r.get(2, "p", id).unwrap().status, Status::Failed, "{id}");
        assert_eq!(said(&mut r, id), (true, json!(true)), "{id}");
    }
    // 2026: completed either way, and the result it carries says the tool failed.
    let mut r = reg(Model::Task2026);
    r.create(0, "p", "t", None).unwrap();
    r.complete(
        1,
        "t",
        ToolResult {
            is_error: true,
            value: hi.into(),
        },
    );
    let view = r.get(2, "p", "t").unwrap();
    assert_eq!(view.status, Status::Completed);
    let result = view
        .result
        .expect("a completed 2026 task carries its result");
    assert_eq!(result.value.as_value()["isError"], json!(true));
}
