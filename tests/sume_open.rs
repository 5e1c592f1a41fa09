//! The Sume Open API dialect (`wire::sume_open`, rules D-1 to D-12) and the reference server
//! that speaks it (`server::OpenApiServer`, D-13 to D-19), driven through the job tracker. Each
//! test names the rules it checks.

use longcall::admission::{Advice, PermanentReason};
use longcall::cancel::{CancelAnswer, JobErrorCode};
use longcall::outcome::Outcome;
use longcall::server::{HttpAnswer, OpenApiConfig, OpenApiServer};
use longcall::tracker::{Failure, Input, Output, Request, Tracker, TrackerConfig};
use longcall::view::JobView;
use longcall::wire::sume_open::{self, HttpRequest, Kind, OpenStatus, STATUS_TABLE};
use longcall::{Model, Status};
use serde_json::{json, Value};

// ---- readers -------------------------------------------------------------------------------

fn status_of(body: Value) -> JobView {
    sume_open::read_status("job_1", &body).unwrap()
}

/// Rules D-1, D-3.
#[test]
fn every_status_reads_into_the_job_model() {
    let expected = [
        ("queued", Status::Queued, false),
        ("processing", Status::Processing, false),
        ("completed", Status::Completed, false),
        ("failed", Status::Failed, false),
        ("nsfw", Status::Failed, true),
        ("canceled", Status::Canceled, false),
    ];
    assert_eq!(STATUS_TABLE.len(), expected.len());
    for (text, status, refused) in expected {
        let j = status_of(json!({"data": {"sume_status": text}}));
        assert_eq!(j.status, status, "{text}");
        assert_eq!(sume_open::is_content_policy(&j), refused, "{text}");
        assert_eq!(OpenStatus::parse(text).unwrap().as_str(), text);
    }
}

/// Rules D-3.
#[test]
fn unknown_statuses_are_errors_never_pending() {
    for text in ["running", "expired", "pending", "", "Queued"] {
        let e = sume_open::read_status("j", &json!({"data": {"sume_status": text}})).unwrap_err();
        assert_eq!(e.code(), "unknown_status", "{text}");
    }
    for body in [
        json!({"sume_status": "queued"}),
        json!({"data": {}}),
        json!({"data": {"sume_status": 3}}),
        json!(null),
    ] {
        assert_eq!(
            sume_open::read_status("j", &body).unwrap_err().code(),
            "malformed"
        );
    }
}

/// Rules D-4.
#[test]
fn failed_with_content_policy_rejected_is_nsfw_other_failures_keep_their_body() {
    let refused = status_of(json!({"data": {"sume_status": "failed",
        "job": {"error": {"code": "x", "public_reason": "content_policy_rejected"}}}}));
    assert_eq!(refused.status, Status::Failed);
    assert!(sume_open::is_content_policy(&refused));
    assert_eq!(
        refused.error.unwrap(),
        json!({"code": "content_policy", "sume_status": "failed", "public_reason": "content_policy_rejected"})
    );
    let broke = status_of(json!({"data": {"sume_status": "failed",
        "job": {"error": {"code": "generation_failed", "public_reason": "provider_error"}}}}));
    assert!(!sume_open::is_content_policy(&broke));
    assert_eq!(broke.error.unwrap()["code"], "generation_failed");
    let bare = status_of(json!({"data": {"sume_status": "failed"}}));
    assert_eq!(bare.error.unwrap(), json!({"code": "failed"}));
    // The reason is only read on failed: a completed job is never turned into a refusal.
    let done = status_of(json!({"data": {"sume_status": "completed",
        "job": {"error": {"public_reason": "content_policy_rejected"}}}}));
    assert_eq!(done.status, Status::Completed);
    assert!(done.error.is_none());
}

/// Rules D-2, D-8, D-10.
#[test]
fn submit_catalog_and_result_answers() {
    let j = sume_open::read_submit(&json!({"data": {"request_id": "job_9"}})).unwrap();
    assert_eq!((j.id.as_str(), j.status), ("job_9", Status::Queued));
    let j = sume_open::read_submit(
        &json!({"data": {"request_id": "job_9", "sume_status": "processing"}}),
    )
    .unwrap();
    assert_eq!(j.status, Status::Processing);
    assert!(sume_open::read_submit(&json!({"data": {"request_id": ""}})).is_err());
    assert_eq!(
        sume_open::read_catalog(&json!({"data": {"kind": "lipsync"}})).unwrap(),
        Kind::Lipsync
    );
    let audio = sume_open::read_catalog(&json!({"data": {"kind": "audio"}})).unwrap_err();
    assert_eq!(audio.code(), "invalid_input");
    // The refusal names what it was given, as a person reading it needs.
    assert!(
        audio.to_string().contains("\"audio\" is not a kind"),
        "{audio}"
    );
    let r = sume_open::read_result(
        "job_9",
        &json!({"data": {"result": {"artifacts": [{"url": "https://a.invalid/1.png"}]}}}),
    )
    .unwrap();
    assert_eq!(r.status, Status::Completed);
    assert_eq!(
        sume_open::artifact_url(r.result.as_ref().unwrap()),
        Some("https://a.invalid/1.png")
    );
}

/// Rules D-5, D-6.
#[test]
fn error_envelope_request_id_and_retryable() {
    let h = |k: &str, v: &str| vec![(k.to_string(), v.to_string())];
    // error.request_id wins over the header; the header fills in when the body has none.
    let body = json!({"error": {"code": "x", "message": "m", "request_id": "req_body"}});
    let e = sume_open::read_error(500, &h("x-sume-request-id", "req_h"), Some(&body), 0);
    assert_eq!(e.api.request_id.as_deref(), Some("req_body"));
    let e = sume_open::read_error(500, &h("X-Sume-Request-Id", "req_h"), None, 0);
    assert_eq!(
        (e.api.request_id.as_deref(), e.api.code.as_str()),
        (Some("req_h"), "")
    );
    // retryable: false overrides the status class; true leaves it.
    let no = json!({"error": {"code": "upstream", "retryable": false}});
    let yes = json!({"error": {"code": "upstream", "retryable": true}});
    for status in [429u16, 500, 503, 408] {
        let e = sume_open::read_error(status, &[], Some(&no), 0);
        assert!(!sume_open::is_retryable(&e), "{status}");
        assert_eq!(
            sume_open::advice(&e),
            Advice::Permanent {
                reason: PermanentReason::Rejected
            }
        );
        assert!(sume_open::is_retryable(&sume_open::read_error(
            status,
            &[],
            Some(&yes),
            0
        )));
    }
    assert!(!sume_open::is_retryable(&sume_open::read_error(
        400,
        &[],
        Some(&yes),
        0
    )));
    // queue_full with retryable: false is permanent too.
    let full = json!({"error": {"code": "queue_full", "retryable": false}});
    assert!(sume_open::advice(&sume_open::read_error(429, &[], Some(&full), 0)).is_permanent());
}

/// Rules D-7.
#[test]
fn retry_after_seconds_or_http_date_never_zero_for_a_date() {
    let at = longcall::time::parse_http_date_ms("Sun, 06 Nov 1994 08:49:37 GMT").unwrap();
    let h = |v: &str| vec![("Retry-After".to_string(), v.to_string())];
    let e = sume_open::read_error(429, &h("2"), None, 0);
    assert_eq!(e.retry_after_ms, Some(2_000));
    let e = sume_open::read_error(429, &h("Sun, 06 Nov 1994 08:49:37 GMT"), None, at - 7_000);
    assert_eq!(e.retry_after_ms, Some(7_000));
    assert_eq!(
        sume_open::failure(&e),
        Failure::Http {
            status: 429,
            code: None,
            retry_after_ms: Some(7_000)
        }
    );
    let e = sume_open::read_error(429, &h("soon"), None, 0);
    assert_eq!(e.retry_after_ms, None);
}

/// Rules D-9.
#[test]
fn cancel_answers_map_onto_the_job_cancel_answer() {
    assert_eq!(
        sume_open::cancel_answer(200, Some(&json!({"data": {"sume_status": "canceled"}}))).unwrap(),
        CancelAnswer::Job {
            status: longcall::status::JobStatus::Canceled
        }
    );
    let e = |code: &str| json!({"error": {"code": code, "retryable": false}});
    for (status, code, want, cancelable) in [
        (
            409,
            "job_generation_already_started",
            JobErrorCode::JobGenerationAlreadyStarted,
            Some(false),
        ),
        (
            409,
            "job_not_cancelable",
            JobErrorCode::JobNotCancelable,
            Some(false),
        ),
        (404, "not_found", JobErrorCode::NotFound, None),
    ] {
        assert_eq!(
            sume_open::cancel_answer(status, Some(&e(code))).unwrap(),
            CancelAnswer::JobError {
                http_status: status,
                code: want,
                cancelable
            }
        );
    }
}

/// Rules D-8, D-11.
#[test]
fn requests_are_pure_data() {
    let r = sume_open::submit_request(
        Kind::Image,
        "img",
        &json!({"model": "other", "prompt": "p"}),
        "k",
    )
    .unwrap();
    assert_eq!(r.path, "/v1/image-router/generate");
    assert_eq!(r.body.as_deref(), Some(r#"{"model":"img","prompt":"p"}"#));
    for kind in [Kind::Video, Kind::Lipsync, Kind::Captions] {
        assert_eq!(kind.route(), "/v1/video-router/generate");
    }
    assert!(sume_open::submit_request(Kind::Image, "img", &json!({}), "").is_err());
    assert!(sume_open::submit_request(Kind::Image, "img", &json!([1]), "k").is_err());
    assert_eq!(
        sume_open::status_request("job_1").unwrap(),
        HttpRequest {
            method: "GET".into(),
            path: "/v1/jobs/job_1/status".into(),
            headers: vec![],
            body: None
        }
    );
    assert_eq!(
        sume_open::result_request("a b").unwrap().path,
        "/v1/jobs/a%20b/result"
    );
    assert_eq!(
        sume_open::catalog_request("m/1").unwrap().path,
        "/v1/open/catalog/m%2F1"
    );
    for bad in ["", ".", ".."] {
        assert!(sume_open::status_request(bad).is_err());
        assert!(sume_open::cancel_request(bad).is_err());
    }
}

// ---- the reference server -----------------------------------------------------------------

fn server() -> OpenApiServer {
    OpenApiServer::new(OpenApiConfig::default()).unwrap()
}

fn as_key(mut r: HttpRequest, key: &str) -> HttpRequest {
    r.headers
        .push(("Authorization".into(), format!("Bearer {key}")));
    r
}

fn body(a: &HttpAnswer) -> Value {
    serde_json::from_str(&a.body).unwrap()
}

fn header<'a>(a: &'a HttpAnswer, name: &str) -> Option<&'a str> {
    a.headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

fn submit(s: &mut OpenApiServer, now: u64, key: &str, model: &str, idem: &str) -> HttpAnswer {
    let kind = if model == "demo-video" {
        Kind::Video
    } else {
        Kind::Image
    };
    let r = sume_open::submit_request(kind, model, &json!({"prompt": "p"}), idem).unwrap();
    s.handle(now, &as_key(r, key))
}

fn poll(s: &mut OpenApiServer, now: u64, key: &str, id: &str) -> HttpAnswer {
    s.handle(now, &as_key(sume_open::status_request(id).unwrap(), key))
}

/// Rules D-12, D-13.
#[test]
fn another_keys_job_is_exactly_an_unknown_id() {
    let mut s = server();
    let id = sume_open::read_submit(&body(&submit(&mut s, 0, "alice", "demo-image", "i1")))
        .unwrap()
        .id;
    let theirs = poll(&mut s, 1, "bob", &id);
    let unknown = poll(&mut s, 2, "bob", "job_nope");
    assert_eq!((theirs.status, unknown.status), (404, 404));
    let strip = |a: &HttpAnswer| {
        let mut b = body(a);
        b["error"].as_object_mut().unwrap().remove("request_id");
        b.as_object_mut().unwrap().remove("request_id");
        b
    };
    assert_eq!(strip(&theirs), strip(&unknown));
    let cancel = s.handle(3, &as_key(sume_open::cancel_request(&id).unwrap(), "bob"));
    assert_eq!(cancel.status, 404);
    assert_eq!(
        s.handle(4, &sume_open::status_request(&id).unwrap()).status,
        401
    );
}

/// Rules D-5, D-18.
#[test]
fn every_answer_carries_a_request_id_and_errors_repeat_it() {
    let mut s = server();
    let a = poll(&mut s, 0, "k", "job_x");
    let rid = header(&a, "x-sume-request-id").unwrap().to_string();
    let e = sume_open::read_error(a.status, &a.headers, Some(&body(&a)), 0);
    assert_eq!(e.api.request_id.as_deref(), Some(rid.as_str()));
    assert_eq!(e.retryable, Some(false));
    let ok = submit(&mut s, 1, "k", "demo-image", "i");
    assert!(header(&ok, "x-sume-request-id").is_some_and(|r| r != rid));
}

/// Rules D-8, D-14.
#[test]
fn one_intent_one_job_and_the_wrong_route_is_refused() {
    let mut s = server();
    let a = submit(&mut s, 0, "k", "demo-image", "intent");
    let b = submit(&mut s, 10, "k", "demo-image", "intent");
    assert_eq!(
        body(&a)["data"]["request_id"],
        body(&b)["data"]["request_id"]
    );
    assert_eq!(s.counters().jobs_per_idempotency_key["intent"], 1);
    assert_eq!((s.counters().submits, s.counters().jobs_created), (2, 1));
    // demo-video on the image route.
    let r = sume_open::submit_request(Kind::Image, "demo-video", &json!({}), "v").unwrap();
    let a = s.handle(20, &as_key(r, "k"));
    assert_eq!(a.status, 400);
    assert_eq!(body(&a)["error"]["details"]["errors"][0]["path"], "model");
}

/// Rules D-14.
#[test]
fn queue_full_is_429_with_retry_after_and_retryable() {
    let mut config = OpenApiConfig::default();
    config.book.queue_limit_per_workspace = 1;
    let mut s = OpenApiServer::new(config).unwrap();
    assert_eq!(submit(&mut s, 0, "k", "demo-image", "a").status, 200);
    let full = submit(&mut s, 1, "k", "demo-image", "b");
    assert_eq!(full.status, 429);
    let e = sume_open::read_error(429, &full.headers, Some(&body(&full)), 1);
    assert_eq!(e.api.code, "queue_full");
    assert_eq!((e.retryable, e.retry_after_ms), (Some(true), Some(1_000)));
    assert_eq!(
        sume_open::advice(&e),
        Advice::QueueFull {
            not_before_ms: Some(1_000)
        }
    );
    // Another key has its own queue.
    assert_eq!(submit(&mut s, 2, "other", "demo-image", "a").status, 200);
}

/// Rules D-17.
#[test]
fn scripted_failures_answer_the_next_requests_then_the_real_one() {
    let mut s = server();
    let script = HttpRequest {
        method: "POST".into(),
        path: "/_script".into(),
        headers: vec![],
        body: Some(r#"{"answers":[{"status":503},{"status":429,"retry_after_s":2}]}"#.into()),
    };
    assert_eq!(s.handle(0, &as_key(script, "k")).status, 200);
    let a = submit(&mut s, 1, "k", "demo-image", "i");
    assert_eq!(a.status, 503);
    assert_eq!(
        sume_open::read_error(503, &a.headers, Some(&body(&a)), 1).retryable,
        Some(true)
    );
    let a = submit(&mut s, 2, "k", "demo-image", "i");
    assert_eq!((a.status, header(&a, "retry-after")), (429, Some("2")));
    let a = submit(&mut s, 3, "k", "demo-image", "i");
    assert_eq!(a.status, 200);
    assert_eq!(s.counters().scripted, 2);
    assert_eq!(s.counters().jobs_created, 1);
}

/// Rules D-15, D-16.
#[test]
fn cancel_window_is_the_queue_wait_and_cancel_refunds() {
    let mut s = server();
    let cancel = |s: &mut OpenApiServer, now, id: &str| {
        s.handle(now, &as_key(sume_open::cancel_request(id).unwrap(), "k"))
    };
    let q = sume_open::read_submit(&body(&submit(&mut s, 0, "k", "demo-image", "q")))
        .unwrap()
        .id;
    assert_eq!(s.counters().credits["k"], 99);
    let a = cancel(&mut s, 500, &q);
    assert_eq!(a.status, 200);
    assert_eq!(body(&a)["data"]["refunded"], true);
    assert_eq!(s.counters().credits["k"], 100);
    assert_eq!(
        sume_open::cancel_answer(200, Some(&body(&a))).unwrap(),
        CancelAnswer::Job {
            status: longcall::status::JobStatus::Canceled
        }
    );
    // Started: 409, the job completes and bills.
    let p = sume_open::read_submit(&body(&submit(&mut s, 1_000, "k", "demo-image", "p")))
        .unwrap()
        .id;
    assert_eq!(s.poll_timeout(), Some(2_000));
    s.handle_timeout(2_000);
    let a = cancel(&mut s, 2_100, &p);
    assert_eq!(a.status, 409);
    assert_eq!(body(&a)["error"]["code"], "job_generation_already_started");
    assert_eq!(body(&a)["error"]["retryable"], false);
    assert_eq!(s.poll_timeout(), Some(3_000));
    s.handle_timeout(3_000);
    let done = sume_open::read_status(&p, &body(&poll(&mut s, 3_001, "k", &p))).unwrap();
    assert_eq!(done.status, Status::Completed);
    assert_eq!(s.counters().credits["k"], 99);
    let a = cancel(&mut s, 3_002, &p);
    assert_eq!(
        (a.status, body(&a)["error"]["code"].as_str()),
        (409, Some("job_not_cancelable"))
    );
    assert_eq!(s.counters().jobs[&p].terminal_at_ms, Some(3_000));
    assert_eq!(s.poll_timeout(), None);
}

/// Drives one job from submit to settle through the tracker, the dialect's readers and the
/// reference server; returns the settled outcome, the last job view and the polls sent.
fn watch(model: &str) -> (Outcome, JobView, u32) {
    let mut s = server();
    let mut t = Tracker::new(Model::Job, TrackerConfig::default()).unwrap();
    let created = sume_open::read_submit(&body(&submit(&mut s, 0, "k", model, "i"))).unwrap();
    let id = created.id.clone();
    t.handle_input(0, Input::JobCreated { job: created })
        .unwrap();
    let (mut now, mut polls, mut last) = (0u64, 0u32, None);
    for _ in 0..10_000 {
        match t.poll_output() {
            Output::Send {
                request: Request::Get { handle },
            } => {
                polls += 1;
                let a = poll(&mut s, now, "k", &handle);
                let job = sume_open::read_status(&handle, &body(&a)).unwrap();
                last = Some(job.clone());
                t.handle_input(now, Input::JobPolled { job }).unwrap();
            }
            Output::Settled { outcome, .. } => return (outcome, last.unwrap(), polls),
            Output::WakeAt { at } => {
                now = at.min(s.poll_timeout().unwrap_or(at)).max(now + 1);
                s.handle_timeout(now);
                t.handle_timeout(now);
            }
            Output::Idle => panic!("idle before settling {id}"),
            _ => {}
        }
    }
    panic!("{model} never settled")
}

/// Rules D-2, D-4, D-15.
#[test]
fn the_tracker_settles_every_ending_through_the_open_api() {
    let (o, j, polls) = watch("demo-image");
    assert_eq!((o, j.status), (Outcome::Succeeded, Status::Completed));
    assert!(polls >= 1);
    for model in ["demo-nsfw", "demo-rejected"] {
        let (o, j, _) = watch(model);
        assert_eq!(o, Outcome::Failed, "{model}");
        assert!(sume_open::is_content_policy(&j), "{model}");
    }
    let (o, j, _) = watch("demo-fail");
    assert_eq!(o, Outcome::Failed);
    assert!(!sume_open::is_content_policy(&j));
}

/// Rules D-3.
#[test]
fn status_bodies_round_trip_through_the_reader() {
    for (text, _, status, reason) in STATUS_TABLE {
        let job = JobView {
            id: "j".into(),
            status: *status,
            result: None,
            error: reason.map(|r| json!({"code": r}).into()),
        };
        let b = sume_open::status_body(&job);
        assert_eq!(b["data"]["sume_status"], *text);
        let back = sume_open::read_status("j", &b).unwrap();
        assert_eq!(back.status, *status);
        assert_eq!(sume_open::is_content_policy(&back), reason.is_some());
    }
}

/// Rules D-2, D-19.
#[test]
fn the_mcp_job_tools_reach_the_same_jobs() {
    use longcall::wire::sume;
    let mut s = server();
    let req = |method: &str, path: &str, body: Option<Value>, key: &str| {
        as_key(
            HttpRequest {
                method: method.into(),
                path: path.into(),
                headers: vec![],
                body: body.map(|b| b.to_string()),
            },
            key,
        )
    };
    let submit = json!({"model": "demo-video", "prompt": "p", "idempotency_key": "t-1"});
    let a = s.handle(0, &req("POST", "/jobs", Some(submit.clone()), "k"));
    assert_eq!(a.status, 202, "{}", a.body);
    let created = sume::read_create(&body(&a)).unwrap();
    assert_eq!(created.object.as_deref(), Some("video_generation"));
    let id = created.jobs[0].id.clone();
    // The same key replays the job; the Open API sees the same job.
    let again = s.handle(10, &req("POST", "/jobs", Some(submit), "k"));
    assert_eq!(sume::read_create(&body(&again)).unwrap().jobs[0].id, id);
    let open = sume_open::read_status(&id, &body(&poll(&mut s, 20, "k", &id))).unwrap();
    assert_eq!(open.status, Status::Queued);
    // jobs_cancel with its own key, replayed.
    let c = json!({"job_id": id, "idempotency_key": "c-1"});
    let a = s.handle(
        30,
        &req("POST", &format!("/jobs/{id}/cancel"), Some(c.clone()), "k"),
    );
    assert_eq!(
        sume::cancel_answer(a.status, Some(&body(&a))).unwrap(),
        CancelAnswer::Job {
            status: longcall::status::JobStatus::Canceled
        }
    );
    let b = s.handle(
        40,
        &req("POST", &format!("/jobs/{id}/cancel"), Some(c), "k"),
    );
    assert_eq!(b.status, 200);
    let j = sume::read_job(&body(
        &s.handle(50, &req("GET", &format!("/jobs/{id}"), None, "k")),
    ))
    .unwrap();
    assert_eq!(j.status, Status::Canceled);
    // jobs_wait: settled at once; another key's id makes the whole call 404.
    let w = json!({"job_ids": [id], "wait_for": "all", "include_results": true});
    let a = s.handle(60, &req("POST", "/jobs/wait", Some(w.clone()), "k"));
    let wait = sume::read_wait(&body(&a)).unwrap();
    assert_eq!((wait.jobs.len(), wait.timed_out), (1, false));
    let a = s.handle(70, &req("POST", "/jobs/wait", Some(w), "other"));
    let e = sume::read_error(a.status, &body(&a)).unwrap();
    assert_eq!((e.http_status, e.code.as_str()), (404, "not_found"));
    assert!(e.request_id.is_some());
    // A queued job's wait is not satisfied yet: timed_out, a partial snapshot.
    let q = json!({"model": "demo-image", "idempotency_key": "t-2"});
    let a = s.handle(80, &req("POST", "/jobs", Some(q), "k"));
    let qid = sume::read_create(&body(&a)).unwrap().jobs[0].id.clone();
    let w = json!({"job_ids": [qid], "wait_for": "any"});
    let a = s.handle(90, &req("POST", "/jobs/wait", Some(w), "k"));
    assert!(sume::read_wait(&body(&a)).unwrap().timed_out);
}

mod hostile {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Any request, however malformed, gets an HTTP answer with a JSON body and a request
        /// id; the server stays usable and its counters only grow.
        #[test]
        fn the_server_answers_every_request(
            method in "(GET|POST|PUT|)",
            path in r"/(v1|_script|_counters|jobs)?(/[a-z%0-9.\-]{0,12}){0,4}",
            key in proptest::option::of("[a-z]{0,3}"),
            idem in proptest::option::of("[a-z]{0,3}"),
            body in proptest::option::of(r#"[\[\]{}",:0-9a-z\- ]{0,60}"#),
            now in 0u64..10_000,
        ) {
            let mut s = server();
            let mut headers = vec![];
            if let Some(k) = key { headers.push(("Authorization".to_string(), format!("Bearer {k}"))); }
            if let Some(i) = idem { headers.push(("Idempotency-Key".to_string(), i)); }
            let req = HttpRequest { method, path, headers, body };
            for t in [now, now + 1, now + 5_000] {
                let a = s.handle(t, &req);
                prop_assert!((200..600).contains(&a.status));
                prop_assert!(serde_json::from_str::<Value>(&a.body).is_ok());
                prop_assert!(header(&a, "x-sume-request-id").is_some());
                s.handle_timeout(t);
            }
            let ok = submit(&mut s, now + 6_000, "k", "demo-image", "i");
            prop_assert_eq!(ok.status, 200);
        }
    }
}

/// Rules A-6, R-5: a submit with no answer, or a proxy's page instead of the API's answer, may
/// have made the job: unanswered, for the same key to go again. One the API refused made none,
/// and is admission's to decide, not a tracker's input.
#[test]
fn a_submit_without_the_apis_answer_is_unanswered_and_a_refusal_is_no_input() {
    let answer = |status, body: Option<Value>| sume_open::OpenAnswer {
        request: sume_open::OpenRequest::Submit,
        handle: String::new(),
        status,
        headers: Vec::new(),
        body,
    };
    for (status, body) in [
        (0, None),
        (502, None),
        (504, Some(json!({"message": "timeout"}))),
    ] {
        assert_eq!(
            sume_open::answer_input(&answer(status, body), 0).unwrap(),
            Input::CreateUnanswered,
            "{status}"
        );
    }
    let refused = json!({"error": {"code": "queue_full", "retryable": true}});
    let e = sume_open::answer_input(&answer(429, Some(refused)), 0).unwrap_err();
    assert_eq!(e.code(), "invalid_input");
    assert!(e.to_string().contains("refused the submit"), "{e}");
}
