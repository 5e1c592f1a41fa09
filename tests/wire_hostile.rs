//! Hostile and broken input: every case is a typed error (or a violation), never a panic.

use longcall::cancel::{classify_answer, CancelAnswer, CancelVerdict, JobErrorCode};
use longcall::wire::detect::{detect, Basis};
use longcall::wire::sume::{self, WaitFor};
use longcall::wire::{mcp2025, mcp2026, read_json, read_json_with, Answer, Limits, Message};
use longcall::{Model, Rule, Status};
use serde_json::json;

fn code<T: std::fmt::Debug>(r: Result<T, longcall::Error>) -> &'static str {
    r.unwrap_err().code()
}

#[test]
fn empty_and_not_json() {
    assert_eq!(code(read_json(b"")), "malformed");
    assert_eq!(code(read_json(b"   ")), "malformed");
    assert_eq!(code(Message::parse(b"")), "malformed");
    assert_eq!(code(Message::parse(b"{")), "malformed");
    assert_eq!(code(Message::parse(b"[]")), "malformed");
    assert_eq!(code(Message::parse(b"null")), "malformed");
    assert_eq!(
        code(mcp2026::parse_get_response(b"", &Limits::DEFAULT)),
        "malformed"
    );
}

#[test]
fn invalid_utf8() {
    assert_eq!(code(read_json(b"{\"a\":\"\xff\xfe\"}")), "malformed");
    assert_eq!(code(Message::parse(b"\xc3\x28")), "malformed");
    let bad =
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"taskId\":\"\xff\",\"status\":\"working\"}}";
    assert_eq!(
        code(mcp2026::parse_get_response(bad, &Limits::DEFAULT)),
        "malformed"
    );
}

/// Rules S-3.
#[test]
fn ten_megabyte_string() {
    let big = format!("{{\"a\":\"{}\"}}", "x".repeat(10 * 1024 * 1024));
    assert_eq!(code(read_json(&big)), "too_large");
    // Under a bigger message limit the string limit still holds.
    let roomy = Limits {
        max_bytes: 64 * 1024 * 1024,
        ..Limits::DEFAULT
    };
    let e = read_json_with(&big, &roomy).unwrap_err();
    assert!(
        matches!(
            e,
            longcall::Error::TooLarge {
                what: "JSON string",
                ..
            }
        ),
        "{e:?}"
    );
    // An unterminated giant string too.
    let open = format!("\"{}", "x".repeat(5 * 1024 * 1024));
    assert_eq!(code(read_json(&open)), "too_large");
}

/// Rules S-3.
#[test]
fn deep_nesting_is_too_deep_not_a_stack_overflow() {
    for open in ["[", "{\"a\":"] {
        let deep = open.repeat(100_000);
        assert_eq!(code(read_json(&deep)), "too_deep");
        assert_eq!(code(Message::parse(&deep)), "too_deep");
        assert_eq!(
            code(mcp2026::parse_get_response(
                deep.as_bytes(),
                &Limits::DEFAULT
            )),
            "too_deep"
        );
    }
    // Brackets inside strings do not count.
    let s = format!("{{\"a\":\"{}\"}}", "[".repeat(10_000));
    assert!(read_json(&s).is_ok());
    // Escaped quotes and backslashes do not end a string early.
    let tight = Limits {
        max_depth: 2,
        ..Limits::DEFAULT
    };
    let s = format!(r#"{{"a":"\"{}\\","b":[1]}}"#, "[".repeat(10));
    assert!(read_json_with(&s, &tight).is_ok(), "{s}");
    let s = r#"{"a":"\\","b":[[1]]}"#;
    assert_eq!(code(read_json_with(s, &tight)), "too_deep");
    // 64 levels pass, 65 do not.
    let ok = format!("{}{}", "[".repeat(64), "]".repeat(64));
    assert!(read_json(&ok).is_ok());
    let no = format!("{}{}", "[".repeat(65), "]".repeat(65));
    assert_eq!(code(read_json(&no)), "too_deep");
    // A limit above serde_json's own (128) is a Malformed error, still no overflow.
    let lax = Limits {
        max_depth: 100_000,
        ..Limits::DEFAULT
    };
    let deep = "[".repeat(50_000);
    assert_eq!(code(read_json_with(&deep, &lax)), "malformed");
}

fn get(
    result: serde_json::Value,
) -> Result<longcall::wire::Parsed<longcall::view::TaskView>, longcall::Error> {
    mcp2026::read_get(&result)
}

fn task(extra: serde_json::Value) -> serde_json::Value {
    let mut base = json!({"taskId":"t","status":"working","createdAt":"2026-11-29T15:00:00Z",
        "lastUpdatedAt":"2026-11-29T15:00:01Z","ttlMs":60000,"resultType":"complete"});
    for (k, v) in extra.as_object().unwrap() {
        if v.is_null() && k != "ttlMs" {
            base.as_object_mut().unwrap().remove(k);
        } else {
            base[k] = v.clone();
        }
    }
    base
}

#[test]
fn numbers_that_do_not_fit() {
    // Rule M-20: an interval or TTL that is no count is said and read as absent; the task is
    // still read.
    for bad in [
        json!(-1),
        json!(1.5),
        json!(1e30),
        json!("60000"),
        json!(u64::MAX as f64 * 4.0),
    ] {
        for member in ["ttlMs", "pollIntervalMs"] {
            let parsed = get(task(json!({ member: bad.clone() }))).expect("readable");
            assert_eq!(parsed.value.task_id, "t");
            let rules: Vec<Rule> = parsed.violations.iter().map(|v| v.rule).collect();
            assert_eq!(rules, [Rule::MissingField], "{member} {bad}");
            assert!(
                parsed.violations[0].detail.starts_with(member),
                "{member} {bad}"
            );
            assert_eq!(parsed.value.poll_interval_ms, None);
        }
    }
    let huge = br#"{"jsonrpc":"2.0","id":1,"result":{"taskId":"t","status":"working","ttlMs":123456789012345678901234567890}}"#;
    match mcp2026::parse_get_response(huge, &Limits::DEFAULT) {
        Ok((_, Answer::Result(parsed))) => assert!(parsed.value.ttl_ms.is_not_given()),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        code(Message::parse(br#"{"jsonrpc":"2.0","id":1.5,"result":{}}"#)),
        "malformed"
    );
    assert_eq!(
        code(Message::parse(
            br#"{"jsonrpc":"2.0","id":99999999999999999999,"result":{}}"#
        )),
        "malformed"
    );
    assert_eq!(
        code(Message::parse(
            br#"{"jsonrpc":"2.0","id":1,"error":{"code":1.5}}"#
        )),
        "malformed"
    );
}

/// Rules S-1, L-9.
#[test]
fn wrong_types_and_missing_fields() {
    assert_eq!(code(get(json!([]))), "malformed");
    assert_eq!(code(get(json!("task"))), "malformed");
    assert_eq!(code(get(task(json!({"taskId": 5})))), "malformed");
    assert_eq!(code(get(task(json!({"taskId": null})))), "malformed");
    assert_eq!(code(get(task(json!({"status": null})))), "malformed");
    assert_eq!(code(get(task(json!({"status": true})))), "malformed");
    assert_eq!(code(get(task(json!({"statusMessage": 3})))), "malformed");
    // Unknown status: typed, with the raw text.
    match get(task(json!({"status": "pending"}))).unwrap_err() {
        longcall::Error::UnknownStatus { raw, model } => {
            assert_eq!(raw, "pending");
            assert_eq!(model, Model::Task2026);
        }
        e => panic!("{e:?}"),
    }
    assert_eq!(
        code(get(task(json!({"status": "canceled"})))),
        "status_not_in_model"
    );
    assert_eq!(
        code(Message::parse(br#"{"id":1,"result":{}}"#)),
        "malformed"
    );
    assert_eq!(
        code(Message::parse(br#"{"jsonrpc":"2.0","id":1}"#)),
        "malformed"
    );
    assert_eq!(
        code(Message::parse(br#"{"jsonrpc":"2.0","id":{},"result":{}}"#)),
        "malformed"
    );
    assert_eq!(
        code(Message::parse(
            br#"{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1}}"#
        )),
        "malformed"
    );
    assert_eq!(
        code(Message::parse(br#"{"jsonrpc":"2.0","method":5}"#)),
        "malformed"
    );
    assert_eq!(
        code(mcp2025::read_create(&json!({"taskId":"t"}))),
        "malformed"
    );
    assert_eq!(code(mcp2025::read_list(&json!({"tasks": {}}))), "malformed");
}

fn rules(p: &longcall::wire::Parsed<longcall::view::TaskView>) -> Vec<Rule> {
    p.violations.iter().map(|v| v.rule).collect()
}

/// Rules M-1, M-8, P-7: `ttlMs` (2025 `ttl`) tells absent from `null` and a number, on both
/// revisions and on the fast 2026 reader as on serde's, and each is written back as it was read.
#[test]
fn ttl_absent_null_and_number_stay_apart() {
    use longcall::view::Ttl;
    for (member, ttl, violations) in [
        (None, Ttl::NotGiven, vec![Rule::MissingField]),
        (Some(json!(null)), Ttl::Unlimited, vec![]),
        (Some(json!(5_000)), Ttl::Ms(5_000), vec![]),
    ] {
        let base = json!({
            "taskId": "t1", "status": "working",
            "createdAt": "2026-11-29T15:07:54Z", "lastUpdatedAt": "2026-11-29T15:07:54Z",
        });
        let (mut t25, mut t26) = (base.clone(), base);
        t26["resultType"] = json!("complete");
        if let Some(m) = member {
            t25["ttl"] = m.clone();
            t26["ttlMs"] = m;
        }
        let p = mcp2025::read_get(&t25).unwrap();
        assert_eq!((p.value.ttl_ms, rules(&p)), (ttl, violations.clone()));
        let back = serde_json::to_value(mcp2025::Task::from_view(&p.value)).unwrap();
        assert_eq!(back.get("ttl"), t25.get("ttl"));

        let p = mcp2026::read_get(&t26).unwrap();
        assert_eq!((p.value.ttl_ms, rules(&p)), (ttl, violations.clone()));
        let text = json!({"jsonrpc": "2.0", "id": 1, "result": t26}).to_string();
        let (_, fast) = mcp2026::parse_get_response(text.as_bytes(), &Limits::DEFAULT).unwrap();
        let Answer::Result(fast) = fast else {
            panic!("{fast:?}")
        };
        assert_eq!(fast, p, "the fast reader agrees with serde's");
        let back = serde_json::to_value(mcp2026::Task::from_view(&p.value, None)).unwrap();
        assert_eq!(back.get("ttlMs"), t26.get("ttlMs"));
    }
}

/// Rules M-13, S-5.
#[test]
fn shape_problems_are_violations() {
    let p = get(task(json!({"ttlMs": null}))).unwrap();
    assert!(p.violations.is_empty());
    assert_eq!(p.value.ttl_ms, longcall::view::Ttl::Unlimited);
    let mut no_ttl = task(json!({}));
    no_ttl.as_object_mut().unwrap().remove("ttlMs");
    let absent = get(no_ttl).unwrap();
    assert_eq!(rules(&absent), [Rule::MissingField]);
    assert_eq!(absent.value.ttl_ms, longcall::view::Ttl::NotGiven);
    assert_eq!(
        rules(&get(task(json!({"resultType": "task"}))).unwrap()),
        [Rule::WrongResultType]
    );
    assert_eq!(
        rules(&get(task(json!({"result": {"content": []}}))).unwrap()),
        [Rule::ResultContradictsStatus]
    );
    assert_eq!(
        rules(&get(task(json!({"status": "completed"}))).unwrap()),
        [Rule::ResultContradictsStatus]
    );
    assert_eq!(
        rules(&get(task(json!({"status": "failed"}))).unwrap()),
        [Rule::ResultContradictsStatus]
    );
    assert_eq!(
        rules(&get(task(json!({"status": "input_required"}))).unwrap()),
        [Rule::ResultContradictsStatus]
    );
    let p = get(task(
        json!({"status": "input_required", "inputRequests": {"k": {"params": {}}}}),
    ))
    .unwrap();
    assert_eq!(rules(&p), [Rule::MissingField]);
    assert_eq!(p.value.input_requests[0].key, "k");
    let p = get(task(
        json!({"status": "failed", "error": {"code": -32603, "message": "boom"}}),
    ))
    .unwrap();
    assert!(p.violations.is_empty());
    assert_eq!(p.value.error.unwrap().code, -32603);
    let p = get(task(
        json!({"status": "completed", "result": {"content": [], "isError": true}}),
    ))
    .unwrap();
    assert!(p.violations.is_empty());
    assert!(p.value.result.unwrap().is_error);
    assert_eq!(
        rules(&get(task(json!({"createdAt": "yesterday"}))).unwrap()),
        [Rule::MissingField]
    );
    // CreateTaskResult needs resultType "task".
    let p = mcp2026::read_create(&task(json!({}))).unwrap();
    assert_eq!(rules(&p), [Rule::WrongResultType]);
    let p = mcp2026::read_ack(&json!({"resultType": "task"})).unwrap();
    assert_eq!(p.violations[0].rule, Rule::WrongResultType);
}

#[test]
fn cancel_answers_map_into_the_table() {
    let ack =
        Message::parse(br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete"}}"#).unwrap();
    let a = mcp2026::cancel_answer(&ack).unwrap();
    assert_eq!(
        classify_answer(Model::Task2026, a),
        CancelVerdict::Acknowledged
    );
    assert_eq!(
        classify_answer(Model::Task2025, mcp2025::cancel_answer(&ack).unwrap()),
        CancelVerdict::BreaksRevision
    );
    let t = Message::parse(br#"{"jsonrpc":"2.0","id":1,"result":{"taskId":"t","status":"working","ttl":null,"createdAt":"x","lastUpdatedAt":"x"}}"#).unwrap();
    assert_eq!(
        mcp2025::cancel_answer(&t).unwrap(),
        CancelAnswer::Task {
            status: longcall::status::TaskStatus::Working
        }
    );
    let req = mcp2026::cancel_request(1.into(), "t");
    assert_eq!(code(mcp2026::cancel_answer(&req)), "malformed");

    let job = json!({"id":"job_1","status":"canceled"});
    assert_eq!(
        sume::cancel_answer(200, Some(&job)).unwrap(),
        CancelAnswer::Job {
            status: longcall::status::JobStatus::Canceled
        }
    );
    assert_eq!(
        sume::cancel_answer(200, Some(&json!({"job": job}))).unwrap(),
        CancelAnswer::Job {
            status: longcall::status::JobStatus::Canceled
        }
    );
    let nf = json!({"error":{"code":"not_found","message":"x"},"request_id":"r"});
    assert_eq!(
        sume::cancel_answer(404, Some(&nf)).unwrap(),
        CancelAnswer::JobError {
            http_status: 404,
            code: JobErrorCode::NotFound,
            cancelable: None
        }
    );
    let done =
        json!({"error":{"code":"job_not_cancelable","message":"x","details":{"cancelable":false}}});
    let a = sume::cancel_answer(409, Some(&done)).unwrap();
    assert_eq!(
        classify_answer(Model::Job, a),
        CancelVerdict::AlreadyFinished
    );
    assert_eq!(
        sume::cancel_answer(503, None).unwrap(),
        CancelAnswer::JobError {
            http_status: 503,
            code: JobErrorCode::Other,
            cancelable: None
        }
    );
    assert_eq!(code(sume::cancel_answer(200, None)), "malformed");
    assert_eq!(
        code(sume::cancel_answer(
            200,
            Some(&json!({"id":"j","status":"pending"}))
        )),
        "unknown_status"
    );
}

/// Rules J-1, J-2, J-4.
#[test]
fn sume_shapes() {
    let c = sume::read_create(
        &json!({"object":"image_generation","job":{"id":"job_1","status":"queued"}}),
    )
    .unwrap();
    assert_eq!(c.object.as_deref(), Some("image_generation"));
    assert_eq!(c.jobs[0].status, Status::Queued);
    let c = sume::read_create(
        &json!({"jobs":[{"id":"a","status":"queued"},{"id":"b","status":"running"}]}),
    )
    .unwrap();
    assert_eq!(c.jobs.len(), 2);
    assert_eq!(code(sume::read_create(&json!({"object":"x"}))), "malformed");
    let w = sume::read_wait(&json!({"jobs":[{"id":"a","status":"expired"},{"id":"b","status":"completed","result":{"url":"u"}}],"timed_out":true})).unwrap();
    assert!(w.timed_out);
    assert_eq!(w.jobs[0].status, Status::Expired);
    assert!(w.jobs[1].result.is_some());
    assert!(!sume::read_wait(&json!({"jobs":[]})).unwrap().timed_out);
    assert_eq!(
        code(sume::read_wait(&json!({"jobs":[],"timed_out":"yes"}))),
        "malformed"
    );
    assert_eq!(
        code(sume::read_error(500, &json!({"error":"boom"}))),
        "malformed"
    );
    let ids: Vec<String> = (0..21).map(|i| format!("job_{i}")).collect();
    let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
    assert_eq!(
        code(sume::wait_request(&refs, WaitFor::All, Some(50), true)),
        "invalid_input"
    );
    assert!(sume::wait_request(&refs[..20], WaitFor::Any, None, false).is_ok());
    assert_eq!(code(sume::cancel_request("job_1", "")), "invalid_input");
    assert_eq!(
        sume::cancel_request("job_1", "k").unwrap(),
        json!({"job_id":"job_1","idempotency_key":"k"})
    );
    let j: sume::Job =
        serde_json::from_value(json!({"id":"a","status":"queued","model":"m"})).unwrap();
    assert_eq!(
        serde_json::to_value(&j).unwrap(),
        json!({"id":"a","status":"queued","model":"m"})
    );
    assert_eq!(sume::retry_after_ms("3", 0).unwrap(), 3000);
}

/// Rules M-12.
#[test]
fn detection_never_guesses() {
    let plain = Message::parse(br#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#).unwrap();
    assert_eq!(detect(None, None, Some(&plain)).model, None);
    let d = detect(Some(Model::Task2025), Some("2026-07-28"), Some(&plain));
    assert_eq!((d.model, d.basis), (Some(Model::Task2025), Basis::Override));
    let nested = mcp2025::list_request(1.into(), None);
    let d = detect(None, Some("2026-07-28"), Some(&nested));
    assert_eq!((d.model, d.basis), (None, Basis::Conflict));
    let get = mcp2026::get_request(1.into(), "t");
    assert_eq!(detect(None, None, Some(&get)).model, Some(Model::Task2026));
    assert_eq!(
        longcall::wire::detect::from_headers([("mcp-protocol-version", "2025-11-25")]),
        Some(Model::Task2025)
    );
    assert!(matches!(
        mcp2025::read_task_result(
            &Message::parse(br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"x"}}"#)
                .unwrap()
        )
        .unwrap(),
        Answer::Error(_)
    ));
}

/// Rules M-8, M-13.
#[test]
fn builders_match_the_wire() {
    let m = mcp2025::tools_call_request(1.into(), "slow_steps", json!({"steps":3}), Some(60000));
    assert_eq!(m.to_value()["params"]["task"], json!({"ttl": 60000}));
    let m = mcp2026::update_request(2.into(), "t", serde_json::Map::new());
    assert!(m.to_value()["params"]["inputResponses"].is_object());
    let h = mcp2026::http_headers("tasks/cancel", "t");
    assert_eq!(h[0], ("Mcp-Method", "tasks/cancel".to_string()));
    // A view written back as a 2026 task reads back to the same view.
    let v = get(task(
        json!({"status":"completed","result":{"content":[],"isError":false},"pollIntervalMs":200}),
    ))
    .unwrap()
    .value;
    let wire = serde_json::to_value(mcp2026::Task::from_view(&v, Some("complete"))).unwrap();
    let back = mcp2026::read_get(&wire).unwrap();
    assert!(back.violations.is_empty());
    assert_eq!(back.value, v);
}
