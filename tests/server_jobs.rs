//! The reference Sume job server: every rule of `server::job_book`, table-driven where it is a
//! table.

use longcall::cancel::{classify_answer, CancelAnswer, CancelVerdict, JobErrorCode};
use longcall::ownership::Owner;
use longcall::server::{
    JobBook, JobBookConfig, WaitEntry, WaitFor, WriteOutcome, CANCEL_TABLE, MAX_WAIT_IDS,
};
use longcall::snapshot::{restore, save};
use longcall::view::{ApiError, JobView};
use longcall::Status;
use serde_json::json;

fn owner(w: &str, m: &str) -> Owner {
    Owner {
        workspace: w.into(),
        member: m.into(),
    }
}

fn book() -> JobBook {
    JobBook::new(JobBookConfig::default()).unwrap()
}

fn book_with(f: impl FnOnce(&mut JobBookConfig)) -> JobBook {
    let mut c = JobBookConfig::default();
    f(&mut c);
    JobBook::new(c).unwrap()
}

fn ids(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("j{i}")).collect()
}

/// What the cancel-answer classifier makes of a server answer.
fn verdict(a: &Result<JobView, ApiError>) -> CancelVerdict {
    let answer = match a {
        Ok(j) => CancelAnswer::Job {
            status: j.status.expect_job().unwrap(),
        },
        Err(e) => CancelAnswer::JobError {
            http_status: e.http_status,
            code: JobErrorCode::parse(&e.code),
            cancelable: e
                .details
                .as_ref()
                .and_then(|d| d.get("cancelable"))
                .and_then(|c| c.as_bool()),
        },
    };
    classify_answer(longcall::Model::Job, answer)
}

#[test]
fn config_is_validated() {
    for f in [
        (|c: &mut JobBookConfig| c.concurrency_per_workspace = 0) as fn(&mut JobBookConfig),
        |c| c.queue_limit_per_workspace = 0,
    ] {
        let mut c = JobBookConfig::default();
        f(&mut c);
        assert_eq!(JobBook::new(c).unwrap_err().code(), "invalid_config");
    }
}

/// Rules.
#[test]
fn admission_is_queue_first_and_dispatch_is_fifo_per_workspace() {
    let mut b = book_with(|c| c.concurrency_per_workspace = 2);
    let a = owner("w1", "a");
    let z = owner("w2", "z");
    for id in ["j1", "j2", "j3"] {
        assert_eq!(b.submit(0, &a, id, None).unwrap().status, Status::Queued);
    }
    b.submit(0, &z, "k1", None).unwrap();
    assert_eq!(b.dispatch(1), vec!["j1", "j2", "k1"]);
    assert_eq!(b.get(&a, "j3").unwrap().status, Status::Queued);
    assert_eq!(b.count("w1", Status::Processing), 2);
    assert!(b.dispatch(2).is_empty());
    assert!(b.complete(3, "j2", json!({"url": "x"})).is_applied());
    assert_eq!(b.dispatch(4), vec!["j3"]);
}

/// Rules.
#[test]
fn queue_full_is_429_with_limits_and_the_same_key_succeeds_later() {
    let mut b = book_with(|c| {
        c.concurrency_per_workspace = 1;
        c.queue_limit_per_workspace = 2;
    });
    let a = owner("w", "a");
    b.submit(0, &a, "j1", None).unwrap();
    b.submit(0, &a, "j2", None).unwrap();
    let e = b.submit(0, &a, "j3", Some("key")).unwrap_err();
    assert_eq!((e.http_status, e.code.as_str()), (429, "queue_full"));
    assert_eq!(
        e.details,
        Some(json!({"queued": 2, "queue_limit": 2, "concurrency_limit": 1}).into())
    );
    assert_eq!(b.len(), 2, "no job created");
    // Another workspace is not affected.
    b.submit(0, &owner("v", "a"), "v1", None).unwrap();
    // Cancel a queued job that is no longer needed, retry with the same key.
    b.cancel(1, &a, "j2", None).unwrap();
    let j = b.submit(2, &a, "j4", Some("key")).unwrap();
    assert_eq!((j.id.as_str(), j.status), ("j4", Status::Queued));
}

/// Rules.
#[test]
fn credits_gate_admission_and_refund_unbilled_jobs() {
    let mut b = book_with(|c| c.cost_per_job = 5);
    let a = owner("w", "a");
    b.set_credits("w", Some(12));
    b.submit(0, &a, "j1", None).unwrap();
    b.submit(0, &a, "j2", None).unwrap();
    assert_eq!(b.credits("w"), Some(2));
    let e = b.submit(0, &a, "j3", None).unwrap_err();
    assert_eq!(
        (e.http_status, e.code.as_str()),
        (402, "insufficient_credits")
    );
    assert_eq!(
        e.details,
        Some(json!({"required": 5, "available": 2}).into())
    );
    assert!(b.get(&a, "j3").is_err(), "no job created");
    b.cancel(1, &a, "j1", None).unwrap();
    assert_eq!(b.credits("w"), Some(7), "a canceled job costs nothing");
    b.dispatch(2);
    b.complete(3, "j2", json!({})); // bills
    assert_eq!(b.credits("w"), Some(7));
    b.submit(4, &a, "j3", None).unwrap();
    b.dispatch(5);
    b.fail(6, "j3", json!({"code": "provider_error"}));
    assert_eq!(b.credits("w"), Some(7), "a failed job is refunded");
    b.set_credits("w", None);
    assert_eq!(b.credits("w"), None);
    b.set_credits("w", Some(0));
    let e = b.submit(7, &a, "j5", None).unwrap_err();
    assert_eq!(e.http_status, 402);
}

/// Rules.
#[test]
fn submit_idempotency_key_replays_the_original_job() {
    let mut b = book_with(|c| c.queue_limit_per_workspace = 1);
    let a = owner("w", "a");
    let first = b.submit(0, &a, "j1", Some("k")).unwrap();
    // Queue full for new jobs, but the replay is still the original job.
    let again = b.submit(1, &a, "j2", Some("k")).unwrap();
    assert_eq!(again, first);
    b.dispatch(2);
    let again = b.submit(3, &a, "j3", Some("k")).unwrap();
    assert_eq!(
        (again.id.as_str(), again.status),
        ("j1", Status::Processing)
    );
    assert_eq!(b.len(), 1);
    // The key is scoped to (workspace, member).
    let other = owner("w", "b");
    let e = b.submit(4, &other, "j4", Some("k")).unwrap();
    assert_eq!(e.id, "j4", "another member's key is a new submit");
    let c = b.submit(4, &owner("v", "a"), "j5", Some("k")).unwrap();
    assert_eq!(c.id, "j5");
}

/// Rules J-6.
#[test]
fn submit_validation() {
    let mut b = book();
    let a = owner("w", "a");
    for (o, id, key) in [
        (owner("", "a"), "j", None),
        (owner("w", ""), "j", None),
        (a.clone(), "", None),
        (a.clone(), "j", Some("")),
    ] {
        let e = b.submit(0, &o, id, key).unwrap_err();
        assert_eq!((e.http_status, e.code.as_str()), (400, "invalid_request"));
    }
    b.submit(0, &a, "j", None).unwrap();
    let e = b.submit(0, &owner("w", "b"), "j", None).unwrap_err();
    assert_eq!((e.http_status, e.code.as_str()), (500, "internal_error"));
    assert!(e.details.is_none(), "nothing about the existing job leaks");
}

/// Drives a fresh job of `a` into `status`.
fn job_in(b: &mut JobBook, a: &Owner, id: &str, status: Status) {
    b.submit(0, a, id, None).unwrap();
    match status {
        Status::Queued => {}
        Status::Canceled => {
            b.cancel(1, a, id, None).unwrap();
        }
        Status::Expired => {
            b.expire(1, id);
        }
        _ => {
            b.dispatch(1);
            match status {
                Status::Completed => {
                    b.complete(2, id, json!({"url": "u"}));
                }
                Status::Failed => {
                    b.fail(2, id, json!({"code": "x"}));
                }
                _ => {}
            }
        }
    }
    assert_eq!(b.peek(id).unwrap().1.status, status);
}

/// Rules C-1, C-7, C-8, C-9, J-3.
#[test]
fn the_cancel_table() {
    // (status, http status or 200, code, verdict, status afterwards)
    let rows = [
        (
            Status::Queued,
            200,
            "",
            CancelVerdict::Cancelled,
            Status::Canceled,
        ),
        (
            Status::Canceled,
            200,
            "",
            CancelVerdict::Cancelled,
            Status::Canceled,
        ),
        (
            Status::Processing,
            409,
            "job_generation_already_started",
            CancelVerdict::TooLate,
            Status::Processing,
        ),
        (
            Status::Completed,
            409,
            "job_not_cancelable",
            CancelVerdict::AlreadyFinished,
            Status::Completed,
        ),
        (
            Status::Failed,
            409,
            "job_not_cancelable",
            CancelVerdict::AlreadyFinished,
            Status::Failed,
        ),
        (
            Status::Expired,
            409,
            "job_not_cancelable",
            CancelVerdict::AlreadyFinished,
            Status::Expired,
        ),
    ];
    for (status, http, code, v, after) in rows {
        let mut b = book_with(|c| c.concurrency_per_workspace = 1);
        let a = owner("w", "a");
        job_in(&mut b, &a, "j", status);
        let ans = b.cancel(5, &a, "j", None);
        match &ans {
            Ok(j) => {
                assert_eq!(http, 200, "{status}");
                assert_eq!((j.id.as_str(), j.status), ("j", Status::Canceled));
            }
            Err(e) => {
                assert_eq!((e.http_status, e.code.as_str()), (http, code), "{status}");
                assert_eq!(e.details.as_ref().unwrap()["cancelable"], json!(false));
            }
        }
        assert_eq!(verdict(&ans), v, "{status}");
        assert_eq!(b.peek("j").unwrap().1.status, after, "{status}");
        // A repeated cancel gives the same answer.
        assert_eq!(b.cancel(6, &a, "j", None), ans, "{status}");
    }
    assert_eq!(CANCEL_TABLE.len(), Status::JOB.len());
}

/// Rules C-8, L-4.
#[test]
fn processing_job_keeps_running_after_a_refused_cancel_and_bills() {
    let mut b = book();
    let a = owner("w", "a");
    b.set_credits("w", Some(1));
    b.submit(0, &a, "j", None).unwrap();
    b.dispatch(1);
    assert!(b.cancel(2, &a, "j", None).is_err());
    assert!(b.complete(3, "j", json!({"url": "u"})).is_applied());
    assert_eq!(b.get(&a, "j").unwrap().status, Status::Completed);
    assert_eq!(b.credits("w"), Some(0));
}

/// Rules J-5, C-13.
#[test]
fn cancel_idempotency_key_replays_the_original_answer() {
    let mut b = book();
    let a = owner("w", "a");
    b.submit(0, &a, "j1", None).unwrap();
    b.submit(0, &a, "j2", None).unwrap();
    let first = b.cancel(1, &a, "j1", Some("c1")).unwrap();
    assert_eq!(b.cancel(2, &a, "j1", Some("c1")).unwrap(), first);
    // A refused cancel is replayed as refused, even once the job finished.
    b.dispatch(3);
    let refused = b.cancel(4, &a, "j2", Some("c2")).unwrap_err();
    assert_eq!(refused.code, "job_generation_already_started");
    b.complete(5, "j2", json!({}));
    assert_eq!(b.cancel(6, &a, "j2", Some("c2")).unwrap_err(), refused);
    assert_eq!(
        b.cancel(6, &a, "j2", None).unwrap_err().code,
        "job_not_cancelable"
    );
    let e = b.cancel(7, &a, "j2", Some("c1")).unwrap_err();
    assert_eq!(
        (e.http_status, e.code.as_str()),
        (422, "idempotency_key_mismatch")
    );
}

/// Rules W-1.
#[test]
fn another_member_is_answered_exactly_like_an_unknown_id() {
    let mut b = book();
    let a = owner("w", "a");
    let same_ws = owner("w", "b");
    let other_ws = owner("v", "a");
    b.submit(0, &a, "j", None).unwrap();
    let before = save(&b).unwrap();
    for who in [&same_ws, &other_ws] {
        let unknown = b.get(who, "nope").unwrap_err();
        assert_eq!(
            (unknown.http_status, unknown.code.as_str()),
            (404, "not_found")
        );
        assert_eq!(b.get(who, "j").unwrap_err(), unknown);
        assert_eq!(b.cancel(1, who, "j", None).unwrap_err(), unknown);
        assert_eq!(
            verdict(&b.cancel(1, who, "j", None)),
            CancelVerdict::NotFound
        );
        assert!(b.list(who).is_empty());
        let w = b.wait(1, who, &["j".into()], WaitFor::All, true).unwrap();
        assert_eq!(w.jobs, vec![WaitEntry::NotFound { id: "j".into() }]);
    }
    assert_eq!(save(&b).unwrap(), before, "a foreign call changed state");
    assert_eq!(b.list(&a).len(), 1);
}

/// Rules W-3.
#[test]
fn list_shows_the_owners_jobs_in_submission_order() {
    let mut b = book();
    let a = owner("w", "a");
    for id in ["z", "m", "a"] {
        b.submit(0, &a, id, None).unwrap();
    }
    b.submit(0, &owner("w", "b"), "other", None).unwrap();
    let got: Vec<_> = b.list(&a).into_iter().map(|j| j.id).collect();
    assert_eq!(got, ["z", "m", "a"]);
}

/// Rules B-10, B-1.
#[test]
fn wait_validates_ids() {
    let b = book();
    let a = owner("w", "a");
    for bad in [ids(0), ids(MAX_WAIT_IDS + 1), vec!["x".into(), "x".into()]] {
        let e = b.wait(0, &a, &bad, WaitFor::All, false).unwrap_err();
        assert_eq!((e.http_status, e.code.as_str()), (400, "invalid_request"));
    }
    assert!(b
        .wait(0, &a, &ids(MAX_WAIT_IDS), WaitFor::All, false)
        .is_ok());
}

/// Rules B-10, B-4.
#[test]
fn wait_all_any_and_results() {
    let mut b = book_with(|c| c.concurrency_per_workspace = 3);
    let a = owner("w", "a");
    for id in ["a", "b", "c"] {
        b.submit(0, &a, id, None).unwrap();
    }
    b.dispatch(1);
    let want: Vec<String> = vec!["a".into(), "b".into(), "c".into()];
    let w = b.wait(2, &a, &want, WaitFor::Any, true).unwrap();
    assert!(!w.satisfied);
    b.complete(3, "a", json!({"url": "A"}));
    let w = b.wait(4, &a, &want, WaitFor::Any, true).unwrap();
    assert!(w.satisfied);
    let w = b.wait(4, &a, &want, WaitFor::All, true).unwrap();
    assert!(!w.satisfied, "a timeout answer is this partial snapshot");
    match &w.jobs[0] {
        WaitEntry::Job { job } => assert_eq!(job.result, Some(json!({"url": "A"}).into())),
        e => panic!("{e:?}"),
    }
    b.fail(5, "b", json!({"code": "x"}));
    b.expire(5, "c");
    let w = b.wait(6, &a, &want, WaitFor::All, false).unwrap();
    assert!(w.satisfied);
    for e in &w.jobs {
        match e {
            WaitEntry::Job { job } => {
                assert_eq!(job.result, None, "results only when asked");
                assert_eq!(job.error.is_some(), job.status != Status::Completed);
            }
            e => panic!("{e:?}"),
        }
    }
    // Unknown ids are settled entries.
    let w = b
        .wait(7, &a, &["nope".into()], WaitFor::All, false)
        .unwrap();
    assert!(w.satisfied);
}

/// Rules L-4, L-6.
#[test]
fn worker_writes_follow_the_job_table() {
    let mut b = book();
    let a = owner("w", "a");
    b.submit(0, &a, "j", None).unwrap();
    assert_eq!(
        b.complete(1, "j", json!({})),
        WriteOutcome::NotAllowed {
            status: Status::Queued
        }
    );
    b.dispatch(2);
    assert!(b.complete(3, "j", json!({"n": 1})).is_applied());
    for w in [
        b.complete(4, "j", json!({"n": 2})),
        b.fail(4, "j", json!({})),
        b.expire(4, "j"),
    ] {
        assert_eq!(
            w,
            WriteOutcome::IgnoredTerminal {
                status: Status::Completed
            }
        );
    }
    assert_eq!(b.get(&a, "j").unwrap().result, Some(json!({"n": 1}).into()));
    assert_eq!(b.expire(5, "nope"), WriteOutcome::UnknownId);
    // Queued jobs can fail or expire.
    b.submit(6, &a, "q", None).unwrap();
    assert!(b.expire(7, "q").is_applied());
    assert_eq!(b.get(&a, "q").unwrap().error.unwrap()["code"], "expired");
}

/// Rules S-4.
#[test]
fn snapshot_restores_exactly() {
    let mut b = book();
    let a = owner("w", "a");
    b.set_credits("w", Some(10));
    b.submit(0, &a, "j1", Some("k")).unwrap();
    b.submit(0, &a, "j2", None).unwrap();
    b.cancel(1, &a, "j2", Some("c")).unwrap();
    b.dispatch(2);
    b.complete(3, "j1", json!({"url": "u"}));
    let text = save(&b).unwrap();
    let mut back: JobBook = restore(&text).unwrap();
    assert_eq!(back, b);
    assert_eq!(save(&back).unwrap(), text);
    assert_eq!(back.submit(9, &a, "j9", Some("k")).unwrap().id, "j1");
    assert_eq!(
        back.cancel(9, &a, "j2", Some("c")),
        b.cancel(9, &a, "j2", Some("c"))
    );
}
