//! The endpoint's job side end to end: the Open API dialect replays the open-api vectors'
//! answers through `CallEndpoint` (rule E-10), and the submit with an intent key keeps its key
//! through refusals, a lost answer and a restore (rule E-10, E-11, A-3, A-5, A-6, A-7, R-5).

use std::fs;

use longcall::admission::Advice;
use longcall::cancel::ButtonState;
use longcall::endpoint::{
    CallEndpoint, Config, Event, HttpAnswer, JobDialect, JobSubmit, Transmit, SUBMIT_TRIES,
};
use longcall::outcome::Outcome;
use longcall::tracker::{Failure, StopReason, TrackerConfig};
use longcall::wire::sume_open::{self, Kind};
use longcall::Status;
use serde_json::{json, Value};

fn drain(ep: &mut CallEndpoint) -> Vec<Event> {
    let mut out = Vec::new();
    loop {
        let e = ep.poll_event();
        let last = matches!(e, Event::WakeAt { .. } | Event::Idle);
        out.push(e);
        if last {
            return out;
        }
    }
}

/// The transmits among `events`: (request_ref, method, path, headers, body).
type Sent = (u64, String, String, Vec<(String, String)>, Option<String>);

fn sent(events: &[Event]) -> Vec<Sent> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Transmit(Transmit::Http {
                request_ref,
                method,
                path,
                headers,
                body,
            }) => Some((
                *request_ref,
                method.clone(),
                path.clone(),
                headers.clone(),
                body.clone(),
            )),
            _ => None,
        })
        .collect()
}

fn open_api_config(tracker: Value) -> Config {
    Config {
        tracker: serde_json::from_value::<TrackerConfig>(tracker).unwrap(),
        job_dialect: JobDialect::OpenApi,
        ..Config::default()
    }
}

fn submit(key: &str) -> JobSubmit {
    JobSubmit {
        model: "demo-image".into(),
        kind: Kind::Image,
        arguments: json!({"prompt": "a harbour"}),
        idempotency_key: key.into(),
    }
}

fn answer(status: u16, body: &[u8]) -> HttpAnswer<'_> {
    HttpAnswer {
        status,
        retry_after_ms: None,
        body,
    }
}

/// E-10, D-2 .. D-10: every open-api vector, its answers handed to the endpoint as bytes with
/// their headers; the statuses and the outcome come out as the vector's record says, every
/// request the endpoint builds is the Open API's own, and a completed job settles with the
/// result of its one `GET /result`.
#[test]
fn open_api_vectors_replay_through_the_endpoint() {
    let mut seen = 0;
    let mut results_asked = 0;
    for entry in fs::read_dir("tests/vectors").unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if !name.starts_with("open-api-") {
            continue;
        }
        seen += 1;
        let v: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
        let mut ep = CallEndpoint::submit_job(
            submit(&format!("intent-{name}")),
            open_api_config(v["config"].clone()),
        )
        .unwrap();
        let mut events = drain(&mut ep);
        let mut outcome = None;
        let mut in_flight: Vec<Sent> = sent(&events);
        assert_eq!(in_flight[0].2, "/v1/image-router/generate", "{name}");
        for step in v["steps"].as_array().unwrap() {
            let at = step["at"].as_u64().unwrap();
            if step["timeout"] == json!(true) {
                ep.handle_timeout(at);
            } else if step["input"]["type"] == "cancel_pressed" {
                ep.cancel_pressed(at).unwrap();
            } else if let Some(a) = step.get("open_api") {
                let want = match a["request"].as_str().unwrap() {
                    "submit" => ("POST", "/v1/image-router/generate".to_string()),
                    "status" => (
                        "GET",
                        format!("/v1/jobs/{}/status", a["handle"].as_str().unwrap()),
                    ),
                    "cancel" => (
                        "POST",
                        format!("/v1/jobs/{}/cancel", a["handle"].as_str().unwrap()),
                    ),
                    other => panic!("{name}: {other}"),
                };
                let i = in_flight
                    .iter()
                    .position(|s| (s.1.as_str(), &s.2) == (want.0, &want.1))
                    .unwrap_or_else(|| panic!("{name}: {want:?} not sent; sent {in_flight:?}"));
                let s = in_flight.remove(i);
                let headers: Vec<(String, String)> =
                    serde_json::from_value(a.get("headers").cloned().unwrap_or(json!([]))).unwrap();
                let body = a["body"].to_string();
                let status = a["status"].as_u64().unwrap() as u16;
                ep.handle_http_headers(at, s.0, answer(status, body.as_bytes()), &headers);
            } else {
                continue;
            }
            events = drain(&mut ep);
            in_flight.extend(sent(&events));
            // D-10: after `completed` the endpoint asks `GET /result` once; answer it here.
            if let Some(i) = in_flight.iter().position(|s| s.2.ends_with("/result")) {
                results_asked += 1;
                let s = in_flight.remove(i);
                let body = br#"{"data":{"request_id":"job_1","sume_status":"completed","result":{"artifacts":[{"url":"https://a.invalid/0.png"}]}}}"#;
                ep.handle_http(at, s.0, answer(200, body));
                let more = drain(&mut ep);
                assert!(
                    more.iter()
                        .any(|e| matches!(e, Event::Settled { result: Some(r), .. }
                    if sume_open::artifact_url(r) == Some("https://a.invalid/0.png"))),
                    "{name}: {more:?}"
                );
                events.extend(more);
            }
            for e in &events {
                if let Event::Settled { outcome: o, .. } = e {
                    assert!(outcome.is_none(), "{name}: settled twice");
                    outcome = Some(*o);
                }
            }
        }
        let record = &v["record"];
        assert_eq!(
            ep.tracker().status().map(|s| s.as_str().to_string()),
            record["status"].as_str().map(String::from),
            "{name}"
        );
        assert_eq!(
            outcome.map(|o| o.as_str().to_string()),
            record["outcome"].as_str().map(String::from),
            "{name}"
        );
    }
    assert!(seen >= 9, "open-api vectors: {seen}");
    assert!(results_asked >= 2, "results asked: {results_asked}");
}

/// D-11, E-11: a submit answered with an id no path can carry (`..`, `.`) names no job: the
/// answer is unreadable, and the submit goes again with the same key, never watched as that id.
#[test]
fn a_submit_answered_with_an_id_no_path_can_carry_is_reconciled() {
    for id in ["..", "."] {
        let mut ep = CallEndpoint::submit_job(
            submit("intent-dots"),
            open_api_config(json!({"poll": {"jitter": "none"}})),
        )
        .unwrap();
        let first = sent(&drain(&mut ep)).remove(0);
        let body = format!(r#"{{"data":{{"request_id":"{id}","sume_status":"queued"}}}}"#);
        ep.handle_http(0, first.0, answer(200, body.as_bytes()));
        let out = drain(&mut ep);
        assert!(ep.tracker().handle().is_none(), "{id}: {out:?}");
        assert!(out.contains(&Event::Admission {
            advice: Advice::Reconcile,
            http_status: 200,
            request_id: None,
        }));
        let Some(Event::WakeAt { at }) = out.last().cloned() else {
            panic!("{id}: {out:?}");
        };
        ep.handle_timeout(at);
        let again = sent(&drain(&mut ep)).remove(0);
        assert_eq!((&again.2, &again.3), (&first.2, &first.3), "{id}");
    }
}

/// E-11, A-3, A-5, A-7: a 429 with Retry-After and a 503 are re-sent with the same request and
/// key, not before Retry-After; the created job is then watched with the Open API's status path.
#[test]
fn submit_refusals_resend_the_same_key() {
    let mut ep = CallEndpoint::submit_job(
        submit("intent-1"),
        open_api_config(json!({"poll": {"jitter": "none"}})),
    )
    .unwrap();
    let first = sent(&drain(&mut ep)).remove(0);
    assert!(first
        .3
        .contains(&("Idempotency-Key".into(), "intent-1".into())));
    let busy = br#"{"error":{"code":"rate_limit_exceeded","message":"slow","request_id":"req_9","retryable":true}}"#;
    let headers = vec![("Retry-After".to_string(), "3".to_string())];
    ep.handle_http_headers(10, first.0, answer(429, busy), &headers);
    let out = drain(&mut ep);
    assert!(out.contains(&Event::Admission {
        advice: Advice::RetryAfter {
            not_before_ms: Some(3000)
        },
        http_status: 429,
        request_id: Some("req_9".into()),
    }));
    assert_eq!(out.last(), Some(&Event::WakeAt { at: 3010 }));
    ep.handle_timeout(3010);
    let second = sent(&drain(&mut ep)).remove(0);
    assert_eq!(
        (&second.2, &second.3, &second.4),
        (&first.2, &first.3, &first.4)
    );
    ep.handle_http(
        3020,
        second.0,
        answer(
            503,
            br#"{"error":{"code":"service_unavailable","message":"x"}}"#,
        ),
    );
    let out = drain(&mut ep);
    assert!(out.iter().any(|e| matches!(
        e,
        Event::Admission {
            advice: Advice::Backoff { .. },
            ..
        }
    )));
    let Some(Event::WakeAt { at }) = out.last().cloned() else {
        panic!("{out:?}")
    };
    ep.handle_timeout(at);
    let third = sent(&drain(&mut ep)).remove(0);
    assert_eq!(third.3, first.3);
    assert_eq!(ep.submit_tries(), 3);
    ep.handle_http(
        at + 5,
        third.0,
        answer(
            200,
            br#"{"data":{"request_id":"job_1","sume_status":"queued"}}"#,
        ),
    );
    let out = drain(&mut ep);
    assert!(out.contains(&Event::Status {
        status: Status::Queued
    }));
    assert_eq!(ep.submit_key(), None);
    let Some(Event::WakeAt { at }) = out.last().cloned() else {
        panic!("{out:?}")
    };
    ep.handle_timeout(at);
    let poll = sent(&drain(&mut ep)).remove(0);
    assert_eq!(
        (poll.1.as_str(), poll.2.as_str()),
        ("GET", "/v1/jobs/job_1/status")
    );
}

/// E-11, A-6, R-5: a lost submit answer and a restore with the submit in flight both re-send
/// the submit with the same key (the server answers with the job it has); never a fresh key.
#[test]
fn lost_submit_answer_is_reconciled_with_the_same_key() {
    let mut ep = CallEndpoint::submit_job(submit("intent-2"), open_api_config(json!({}))).unwrap();
    let first = sent(&drain(&mut ep)).remove(0);
    ep.handle_transport_failure(5, first.0);
    let out = drain(&mut ep);
    assert!(out.iter().any(|e| matches!(
        e,
        Event::Admission {
            advice: Advice::Reconcile,
            http_status: 0,
            ..
        }
    )));
    let Some(Event::WakeAt { at }) = out.last().cloned() else {
        panic!("{out:?}")
    };
    ep.handle_timeout(at);
    let second = sent(&drain(&mut ep)).remove(0);
    assert_eq!((&second.3, &second.4), (&first.3, &first.4));
    // Restart with the second try in flight: the restored endpoint sends it again, same key.
    let mut back = CallEndpoint::restore(&ep.snapshot().unwrap(), at + 100).unwrap();
    assert_eq!(back.submit_key(), Some("intent-2"));
    let third = sent(&drain(&mut back)).remove(0);
    assert_eq!((&third.3, &third.4), (&first.3, &first.4));
    back.handle_http(
        at + 110,
        third.0,
        answer(200, br#"{"data":{"request_id":"job_7"}}"#),
    );
    let _ = drain(&mut back);
    assert_eq!(back.tracker().handle(), Some("job_7"));
}

/// E-66: a record found under an intent key vouches only for the job it submitted. Checked
/// before the job is named and after (the submit itself is gone then), in both dialects: the
/// same submit passes, another model, arguments or key is `duplicate`, and an endpoint with no
/// submit of its own (it watches an id, or its record is older) cannot tell.
#[test]
fn a_record_vouches_only_for_the_job_its_intent_submitted() {
    let other = |f: fn(&mut JobSubmit)| {
        let mut s = submit("intent-9");
        f(&mut s);
        s
    };
    for config in [open_api_config(json!({})), Config::default()] {
        let mut ep = CallEndpoint::submit_job(submit("intent-9"), config.clone()).unwrap();
        let first = sent(&drain(&mut ep)).remove(0);
        let creating = CallEndpoint::restore(&ep.snapshot().unwrap(), 1).unwrap();
        let body: &[u8] = if config.job_dialect == JobDialect::OpenApi {
            br#"{"data":{"request_id":"job_9","sume_status":"queued"}}"#
        } else {
            br#"{"id":"job_9","status":"queued"}"#
        };
        ep.handle_http(5, first.0, answer(200, body));
        let _ = drain(&mut ep);
        assert_eq!(ep.tracker().handle(), Some("job_9"));
        assert_eq!(
            ep.submit_key(),
            None,
            "the submit itself is gone once created"
        );
        let created = CallEndpoint::restore(&ep.snapshot().unwrap(), 6).unwrap();
        for record in [&creating, &created] {
            assert_eq!(record.check_submit(&submit("intent-9")), Ok(()));
            let Err(e) = record.check_submit(&other(|s| s.arguments["size"] = json!(2))) else {
                panic!("another argument passed")
            };
            assert_eq!(e.code(), "duplicate");
            assert_eq!(
                e.message(),
                "duplicate idempotency key: \"intent-9\" is already in use"
            );
            for wrong in [
                other(|s| s.model = "demo-video".into()),
                submit("intent-10"),
            ] {
                assert_eq!(
                    record.check_submit(&wrong).map_err(|e| e.code()),
                    Err("duplicate"),
                    "{wrong:?}"
                );
            }
            // A submit that could not be sent is refused as it would be at the start.
            assert_eq!(
                record.check_submit(&submit("")).map_err(|e| e.code()),
                Err("invalid_input")
            );
        }
        // A record saved before submits were kept this way has none to compare: it cannot tell.
        let mut old: Value = serde_json::from_str(&ep.snapshot().unwrap()).unwrap();
        assert!(old["state"]["submit_digest"].is_string());
        old["state"]
            .as_object_mut()
            .unwrap()
            .remove("submit_digest");
        let old = CallEndpoint::restore(&old.to_string(), 7).unwrap();
        assert_eq!(old.check_submit(&other(|s| s.model = "x".into())), Ok(()));
        // A watched id has no submit to compare: it cannot tell, and accepts.
        let watched = CallEndpoint::watch(longcall::Model::Job, "job_9", config).unwrap();
        assert_eq!(
            watched.check_submit(&other(|s| s.model = "x".into())),
            Ok(())
        );
    }
    // In the MCP tools dialect the kind is not sent: it is not part of the job there.
    let ep = CallEndpoint::submit_job(submit("intent-9"), Config::default()).unwrap();
    assert_eq!(ep.check_submit(&other(|s| s.kind = Kind::Video)), Ok(()));
    let ep = CallEndpoint::submit_job(submit("intent-9"), open_api_config(json!({}))).unwrap();
    assert!(ep.check_submit(&other(|s| s.kind = Kind::Video)).is_err());
}

/// E-6, E-66, P-16: a job whose watching stopped is watched again on its handle, its first poll
/// at the floor after the submit's answer (the last answer the earlier watch had), and the new
/// endpoint still vouches only for the job its intent submitted; a call never named, still
/// watched or already settled is not watched again.
#[test]
fn watching_again_keeps_the_submit_the_record_vouches_for() {
    let mut ep = CallEndpoint::submit_job(submit("intent-11"), Config::default()).unwrap();
    let unnamed = ep.watch_again(Config::default()).unwrap_err();
    assert_eq!(unnamed.code(), "invalid_input", "{unnamed}");
    let first = sent(&drain(&mut ep)).remove(0);
    ep.handle_http(
        5,
        first.0,
        answer(200, br#"{"id":"job_11","status":"queued"}"#),
    );
    let _ = drain(&mut ep);
    let watched = ep.watch_again(Config::default()).unwrap_err();
    assert_eq!(watched.code(), "invalid_input", "still watched: {watched}");
    ep.stop_watching(6);
    let _ = drain(&mut ep);
    assert!(ep.tracker().is_done() && ep.tracker().outcome().is_none());
    let stopped = CallEndpoint::restore(&ep.snapshot().unwrap(), 7).unwrap();
    let mut again = stopped.watch_again(Config::default()).unwrap();
    // The submit was answered at 5; the default floor is 500 ms.
    assert_eq!(wake(&drain(&mut again)), 505);
    again.handle_timeout(505);
    let polls = sent(&drain(&mut again));
    assert_eq!(polls.len(), 1);
    assert_eq!(
        (polls[0].1.as_str(), polls[0].2.as_str()),
        ("GET", "/jobs/job_11")
    );
    assert_eq!(again.tracker().handle(), Some("job_11"));
    let back = CallEndpoint::restore(&again.snapshot().unwrap(), 8).unwrap();
    assert_eq!(back.check_submit(&submit("intent-11")), Ok(()));
    let mut other = submit("intent-11");
    other.arguments = json!({"prompt": "a lighthouse"});
    assert_eq!(
        back.check_submit(&other).map_err(|e| e.code()),
        Err("duplicate")
    );
    // Settled: nothing is left to watch.
    let poll = polls[0].0;
    again.handle_http(
        9,
        poll,
        answer(
            200,
            br#"{"id":"job_11","status":"completed","result":{"url":"u"}}"#,
        ),
    );
    let _ = drain(&mut again);
    assert!(again.tracker().outcome().is_some());
    assert_eq!(
        again
            .watch_again(Config::default())
            .map(|_| ())
            .map_err(|e| e.code()),
        Err("invalid_input")
    );
}

/// The armed poll's time, from the `WakeAt` that ends `events`.
fn wake(events: &[Event]) -> u64 {
    match events.last() {
        Some(Event::WakeAt { at }) => *at,
        other => panic!("no wake-up: {other:?}"),
    }
}

/// P-15: a job resumed from its record after a reload keeps the backoff's next look, up to a
/// cap away; a look asked for brings it to the floor after the last poll, and no nearer however
/// often it is asked. A call with a poll out, or ended, is left alone.
#[test]
fn a_look_asked_for_brings_the_next_poll_to_the_floor() {
    let config = || {
        open_api_config(
            json!({"poll": {"jitter": "none", "initialMs": 1000, "capMs": 16000, "minIntervalMs": 500}}),
        )
    };
    let mut ep = CallEndpoint::submit_job(submit("intent-look"), config()).unwrap();
    let create = sent(&drain(&mut ep)).remove(0);
    let queued = br#"{"data":{"request_id":"job_look","sume_status":"queued"}}"#;
    ep.handle_http(0, create.0, answer(200, queued));
    let mut at = wake(&drain(&mut ep));
    // Polls answered `queued` each time: the backoff doubles.
    let mut last_end = 0;
    for _ in 0..4 {
        ep.handle_timeout(at);
        let poll = sent(&drain(&mut ep)).remove(0);
        last_end = at + 10;
        ep.handle_http(last_end, poll.0, answer(200, queued));
        at = wake(&drain(&mut ep));
    }
    assert!(
        at >= last_end + 8000,
        "the backoff has grown: next look at {at}"
    );
    // The page reloads 100 ms after the last poll: the record's schedule stands until asked.
    let mut back = CallEndpoint::restore(&ep.snapshot().unwrap(), last_end + 100).unwrap();
    assert_eq!(wake(&drain(&mut back)), at);
    back.handle_refresh(last_end + 100);
    assert_eq!(
        wake(&drain(&mut back)),
        last_end + 500,
        "the floor after the last poll"
    );
    back.handle_refresh(last_end + 200);
    assert_eq!(
        wake(&drain(&mut back)),
        last_end + 500,
        "asked again: no nearer"
    );
    // Long after the floor: at once.
    let mut later = CallEndpoint::restore(&ep.snapshot().unwrap(), last_end + 3000).unwrap();
    let _ = drain(&mut later);
    later.handle_refresh(last_end + 3000);
    assert_eq!(wake(&drain(&mut later)), last_end + 3000);
    later.handle_timeout(last_end + 3000);
    let poll = sent(&drain(&mut later));
    assert_eq!(poll.len(), 1, "one poll goes out");
    // With the poll out, a look moves nothing; once ended, nothing either.
    later.handle_refresh(last_end + 3001);
    assert!(matches!(
        drain(&mut later).last(),
        Some(Event::WakeAt { .. }) | Some(Event::Idle)
    ));
    assert!(sent(&drain(&mut later)).is_empty());
    let done = br#"{"data":{"request_id":"job_look","sume_status":"failed"}}"#;
    later.handle_http(last_end + 3050, poll[0].0, answer(200, done));
    let _ = drain(&mut later);
    assert!(later.tracker().is_done());
    later.handle_refresh(last_end + 4000);
    assert!(sent(&drain(&mut later)).is_empty());
}

/// D-10, R-5: a key sent again after its job finished is answered with the job as it is,
/// `completed` with no result. The endpoint asks `GET /result` before the job is created, so the
/// job settles with its result; a restart meanwhile sends the submit again (same key); a result
/// that cannot be had still settles the job, without it.
#[test]
fn a_resubmitted_key_whose_job_finished_settles_with_its_result() {
    let done = br#"{"data":{"request_id":"job_9","sume_status":"completed"}}"#;
    let start = |key: &str| {
        let mut ep = CallEndpoint::submit_job(submit(key), open_api_config(json!({}))).unwrap();
        let first = sent(&drain(&mut ep)).remove(0);
        ep.handle_http(10, first.0, answer(200, done));
        let out = drain(&mut ep);
        (ep, first, out)
    };
    let (mut ep, first, out) = start("intent-again");
    let asked = sent(&out);
    assert_eq!(asked.len(), 1, "{out:?}");
    assert_eq!(
        (asked[0].1.as_str(), asked[0].2.as_str()),
        ("GET", "/v1/jobs/job_9/result")
    );
    assert!(
        !out.iter().any(|e| matches!(e, Event::Settled { .. })),
        "{out:?}"
    );
    assert_eq!(
        ep.submit_key(),
        Some("intent-again"),
        "the submit stays open"
    );

    // Restarted before the result came: the submit goes again, with the same key.
    let mut back = CallEndpoint::restore(&ep.snapshot().unwrap(), 20).unwrap();
    let again = sent(&drain(&mut back));
    assert_eq!(again.len(), 1);
    assert_eq!((&again[0].3, &again[0].4), (&first.3, &first.4));

    let result = br#"{"data":{"request_id":"job_9","sume_status":"completed","result":{"artifacts":[{"url":"https://cdn.example/a.png"}]}}}"#;
    ep.handle_http(30, asked[0].0, answer(200, result));
    let out = drain(&mut ep);
    let settled = out.iter().find_map(|e| match e {
        Event::Settled {
            outcome, result, ..
        } => Some((*outcome, result.clone())),
        _ => None,
    });
    let (outcome, result) = settled.unwrap_or_else(|| panic!("{out:?}"));
    assert_eq!(outcome, Outcome::Succeeded);
    assert_eq!(
        result.unwrap()["result"]["artifacts"][0]["url"],
        "https://cdn.example/a.png"
    );
    assert_eq!(ep.tracker().handle(), Some("job_9"));
    assert_eq!(ep.submit_key(), None);

    // The result answered 503: the job is still created finished, without it.
    let (mut ep, _, out) = start("intent-again-2");
    ep.handle_http(30, sent(&out)[0].0, answer(503, b"{}"));
    let out = drain(&mut ep);
    assert!(
        out.iter().any(|e| matches!(
            e,
            Event::Settled {
                outcome: Outcome::Succeeded,
                result: None,
                ..
            }
        )),
        "{out:?}"
    );
}

/// E-11, A-4, D-6: a permanent refusal (and a 503 that says `retryable: false`) settles failed
/// with the API's error object, as a failed job's error is (`error.code`, not
/// `error.error.code`); nothing is sent again.
#[test]
fn permanent_refusal_settles_failed_once() {
    for (status, body) in [
        (
            402,
            r#"{"error":{"code":"insufficient_credits","message":"x"}}"#,
        ),
        (
            503,
            r#"{"error":{"code":"service_unavailable","message":"x","retryable":false}}"#,
        ),
        // A gateway's own JSON, with no error object: kept as it came.
        (400, r#"{"message":"bad request"}"#),
    ] {
        let mut ep =
            CallEndpoint::submit_job(submit("intent-3"), open_api_config(json!({}))).unwrap();
        let first = sent(&drain(&mut ep)).remove(0);
        ep.handle_http(5, first.0, answer(status, body.as_bytes()));
        let out = drain(&mut ep);
        assert!(sent(&out).is_empty());
        let answer: serde_json::Value = serde_json::from_str(body).unwrap();
        let inner = match answer.get("error") {
            Some(error) => error.clone(),
            None => answer.clone(),
        };
        assert!(
            out.iter().any(|e| matches!(
                e,
                Event::Settled {
                    outcome: Outcome::Failed,
                    error: Some(error),
                    ..
                } if *error == inner
            )),
            "{out:?}"
        );
        assert_eq!(out.last(), Some(&Event::Idle));
        // The outcome is the tracker's, in its record and the snapshot: a restored endpoint is
        // done with it, rather than waiting as if the submit were still out.
        assert!(ep.tracker().is_done());
        assert_eq!(ep.tracker().outcome(), Some(Outcome::Failed));
        let mut back = CallEndpoint::restore(&ep.snapshot().unwrap(), 6).unwrap();
        assert!(back.tracker().is_done());
        assert_eq!(back.tracker().outcome(), Some(Outcome::Failed));
        assert_eq!(back.tracker().record().error, Some(inner.into()));
        assert_eq!(drain(&mut back), vec![Event::Idle]);
    }
}

/// A-10: once a try may have made the job (no answer, a 502 page), a refusal of a later try
/// (a 409 while the first is still in progress, a proxy's 404 page) does not say no job was
/// made: watching stops `create_unanswered` with the refusal, the key kept, nothing settled
/// failed; across a restore too. A try refused for good before any such try settles failed.
#[test]
fn a_refusal_after_a_try_that_may_have_made_the_job_is_no_failure() {
    let in_use = br#"{"error":{"code":"idempotency_key_in_use","message":"in progress"}}"#;
    for restore in [false, true] {
        for first in [0u16, 502] {
            let mut ep =
                CallEndpoint::submit_job(submit("intent-10"), open_api_config(json!({}))).unwrap();
            let (id, ..) = sent(&drain(&mut ep))[0].clone();
            if first == 0 {
                ep.handle_transport_failure(5, id);
            } else {
                ep.handle_http(5, id, answer(first, b"<h1>Bad gateway</h1>"));
            }
            let at = wake(&drain(&mut ep));
            if restore {
                ep = CallEndpoint::restore(&ep.snapshot().unwrap(), at).unwrap();
            }
            ep.handle_timeout(at);
            let (retry, ..) = sent(&drain(&mut ep))[0].clone();
            ep.handle_http(at + 5, retry, answer(409, in_use));
            let out = drain(&mut ep);
            let stop = Event::Stopped {
                reason: StopReason::CreateUnanswered,
                failure: Some(Failure::Http {
                    status: 409,
                    code: Some("idempotency_key_in_use".into()),
                    retry_after_ms: None,
                }),
            };
            assert!(out.contains(&stop), "{first} {restore}: {out:?}");
            assert!(
                !out.iter().any(|e| matches!(e, Event::Settled { .. })),
                "{out:?}"
            );
            assert_eq!(ep.tracker().outcome(), None);
            assert_eq!(ep.submit_key(), Some("intent-10"));
        }
    }
    // Refused for now (429), then for good: no try may have made the job.
    let mut ep = CallEndpoint::submit_job(submit("intent-11"), open_api_config(json!({}))).unwrap();
    let (id, ..) = sent(&drain(&mut ep))[0].clone();
    let limited = br#"{"error":{"code":"rate_limit_exceeded","message":"slow"}}"#;
    ep.handle_http(5, id, answer(429, limited));
    let at = wake(&drain(&mut ep));
    ep.handle_timeout(at);
    let (retry, ..) = sent(&drain(&mut ep))[0].clone();
    let broke = br#"{"error":{"code":"insufficient_credits","message":"x"}}"#;
    ep.handle_http(at + 5, retry, answer(402, broke));
    drain(&mut ep);
    assert_eq!(ep.tracker().outcome(), Some(Outcome::Failed));
}

/// E-11: the MCP job tools carry the key in the body; after SUBMIT_TRIES lost answers watching
/// stops with `create_unanswered` and the key stays for a later reconcile.
#[test]
fn mcp_tools_submit_and_the_try_limit() {
    let mut ep = CallEndpoint::submit_job(submit("intent-4"), Config::default()).unwrap();
    let mut now = 0;
    let mut stopped = false;
    for _ in 0..3 * SUBMIT_TRIES {
        let out = drain(&mut ep);
        stopped |= out.contains(&Event::Stopped {
            reason: StopReason::CreateUnanswered,
            failure: None,
        });
        for s in sent(&out) {
            assert_eq!((s.1.as_str(), s.2.as_str()), ("POST", "/jobs"));
            let body: Value = serde_json::from_str(s.4.as_deref().unwrap()).unwrap();
            assert_eq!(body["idempotency_key"], "intent-4");
            ep.handle_transport_failure(now, s.0);
        }
        match out.last() {
            Some(Event::WakeAt { at }) => {
                now = *at;
                ep.handle_timeout(now);
            }
            _ if sent(&out).is_empty() => break,
            _ => {}
        }
    }
    assert!(stopped);
    assert_eq!(ep.submit_tries(), SUBMIT_TRIES);
    assert_eq!(ep.submit_key(), Some("intent-4"));
    // The stop is the tracker's, in the record and the snapshot: a restored endpoint is done and
    // says why, rather than waiting for a try that never comes.
    assert!(ep.tracker().is_done());
    assert_eq!(ep.tracker().stopped(), Some(StopReason::CreateUnanswered));
    let mut back = CallEndpoint::restore(&ep.snapshot().unwrap(), now + 1).unwrap();
    assert!(back.tracker().is_done());
    assert_eq!(back.tracker().stopped(), Some(StopReason::CreateUnanswered));
    assert_eq!(back.submit_key(), Some("intent-4"));
    assert!(
        sent(&drain(&mut back)).is_empty(),
        "nothing is sent again by itself"
    );
    assert_eq!(
        back.cancel_pressed(now + 2).map_err(|e| e.code()),
        Err("cancel_refused")
    );
}

/// The events up to the next wake and those of that wake, which must stop watching at the
/// deadline with the call's handle `handle` kept.
fn stopped_at_deadline(ep: &mut CallEndpoint, handle: &str) -> Vec<Event> {
    let mut out = drain(ep);
    if let Some(Event::WakeAt { at }) = out.last() {
        ep.handle_timeout(*at);
        out.extend(drain(ep));
    }
    assert_eq!(ep.tracker().handle(), Some(handle), "{out:?}");
    let deadline = Event::Stopped {
        reason: StopReason::Deadline,
        failure: None,
    };
    assert!(out.contains(&deadline), "{out:?}");
    out
}

/// E-59: a deadline given as a duration (60 s), so long past when the submit goes out, does not
/// forget the paid job: the watch waits for the submit's answer, keeps the job it names, then
/// stops with `deadline` at once. The same for a `tools/call` whose answer creates a task.
#[test]
fn a_deadline_passed_while_creating_keeps_the_created_call() {
    const NOW: u64 = 1_764_000_000_000;
    let mut ep = CallEndpoint::submit_job(
        submit("intent-d"),
        open_api_config(json!({"deadline_ms": 60_000})),
    )
    .unwrap();
    let out = drain(&mut ep);
    let (request_ref, ..) = sent(&out)[0].clone();
    assert_eq!(
        out.last(),
        Some(&Event::Idle),
        "no wake for a deadline while the submit is out: {out:?}"
    );
    ep.handle_timeout(NOW);
    assert_eq!(
        drain(&mut ep),
        vec![Event::Idle],
        "the submit's answer is awaited"
    );
    ep.handle_http(
        NOW + 5,
        request_ref,
        answer(
            200,
            br#"{"data":{"request_id":"job_9","sume_status":"queued"}}"#,
        ),
    );
    let out = stopped_at_deadline(&mut ep, "job_9");
    assert!(sent(&out).is_empty(), "nothing more is sent: {out:?}");

    // MCP: the tools/call's answer creates the task; its id is kept.
    let config = Config {
        tracker: serde_json::from_value(json!({"deadline_ms": 60_000})).unwrap(),
        ..Config::default()
    };
    let mut ep =
        CallEndpoint::call_tool(longcall::Model::Task2026, "render", json!({}), None, config)
            .unwrap();
    let out = drain(&mut ep);
    assert_eq!(out.last(), Some(&Event::Idle), "{out:?}");
    ep.handle_timeout(NOW);
    assert_eq!(drain(&mut ep), vec![Event::Idle]);
    let created = br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"task","taskId":"t-9","status":"working","createdAt":"2026-11-29T15:07:54Z","lastUpdatedAt":"2026-11-29T15:07:54Z","ttlMs":null,"pollIntervalMs":500}}"#;
    ep.handle_message(NOW + 5, created);
    stopped_at_deadline(&mut ep, "t-9");
}

/// E-59: a deadline that passes while the submit waits between tries (nothing is out: the
/// connection was refused) ends the wait, as running out of tries does: `create_unanswered`,
/// the key kept, nothing more sent. The wake between tries is the earlier of the two.
#[test]
fn a_deadline_between_submit_tries_stops_create_unanswered() {
    const NOW: u64 = 1_764_000_000_000;
    let mut ep = CallEndpoint::submit_job(
        submit("intent-between"),
        open_api_config(json!({"deadline_ms": NOW + 1_500})),
    )
    .unwrap();
    let mut now = NOW;
    let mut out = drain(&mut ep);
    let mut tries = 0;
    while let Some(s) = sent(&out).first() {
        tries += 1;
        ep.handle_transport_failure(now, s.0);
        out = drain(&mut ep);
        let Some(Event::WakeAt { at }) = out.last() else {
            break;
        };
        assert!(*at <= NOW + 1_500, "no wake past the deadline: {out:?}");
        now = *at;
        ep.handle_timeout(now);
        out = drain(&mut ep);
    }
    assert!(
        tries < SUBMIT_TRIES,
        "stopped by the deadline, not the tries: {tries}"
    );
    assert_eq!(now, NOW + 1_500);
    assert!(
        out.contains(&Event::Stopped {
            reason: StopReason::CreateUnanswered,
            failure: None,
        }),
        "{out:?}"
    );
    assert_eq!(out.last(), Some(&Event::Idle));
    assert_eq!(ep.tracker().stopped(), Some(StopReason::CreateUnanswered));
    assert_eq!(ep.submit_key(), Some("intent-between"));
}

/// E-62: the host stops watching while the create is out (a person closes the page, an
/// AbortSignal fires): the stop waits for the create's answer, so the paid job or the task it
/// names is kept and can be found again; a stop kept in a snapshot holds across a restore.
#[test]
fn a_stop_while_creating_keeps_the_created_call() {
    let stopped = Event::Stopped {
        reason: StopReason::HostStopped,
        failure: None,
    };
    let mut ep = CallEndpoint::submit_job(submit("intent-s"), open_api_config(json!({}))).unwrap();
    let (request_ref, ..) = sent(&drain(&mut ep))[0].clone();
    ep.stop_watching(10);
    assert_eq!(
        drain(&mut ep),
        vec![Event::Idle],
        "the submit's answer is awaited"
    );
    assert!(!ep.tracker().is_done());
    // The stop asked is kept in a snapshot.
    let saved = ep.snapshot().unwrap();
    assert!(saved.contains("\"stop_asked\":true"), "{saved}");
    ep.handle_http(
        20,
        request_ref,
        answer(
            200,
            br#"{"data":{"request_id":"job_7","sume_status":"queued"}}"#,
        ),
    );
    let out = drain(&mut ep);
    assert!(out.contains(&stopped), "{out:?}");
    assert!(sent(&out).is_empty(), "no poll after the stop: {out:?}");
    assert_eq!(ep.tracker().handle(), Some("job_7"));
    // Restored before the answer came, the submit is sent again with its key (E-11), and the
    // stop still waits for that answer.
    let mut ep = CallEndpoint::restore(&saved, 30).unwrap();
    let again = sent(&drain(&mut ep));
    assert_eq!(again.len(), 1, "{again:?}");
    assert!(again[0]
        .3
        .contains(&("Idempotency-Key".into(), "intent-s".into())));
    ep.handle_http(
        40,
        again[0].0,
        answer(
            200,
            br#"{"data":{"request_id":"job_7","sume_status":"queued"}}"#,
        ),
    );
    assert!(drain(&mut ep).contains(&stopped));
    assert_eq!(ep.tracker().handle(), Some("job_7"));

    // MCP: the task the tools/call created is kept; a tools/call with no answer still ends
    // `create_unanswered` (never resubmitted), stop or no stop.
    let call = || {
        CallEndpoint::call_tool(
            longcall::Model::Task2026,
            "render",
            json!({}),
            None,
            Config::default(),
        )
        .unwrap()
    };
    let mut ep = call();
    drain(&mut ep);
    ep.stop_watching(10);
    assert_eq!(drain(&mut ep), vec![Event::Idle]);
    let created = br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"task","taskId":"t-7","status":"working","createdAt":"2026-11-29T15:07:54Z","lastUpdatedAt":"2026-11-29T15:07:54Z","ttlMs":null,"pollIntervalMs":500}}"#;
    ep.handle_message(20, created);
    let out = drain(&mut ep);
    assert!(out.contains(&stopped), "{out:?}");
    assert_eq!(ep.tracker().handle(), Some("t-7"));
    let mut ep = call();
    drain(&mut ep);
    ep.stop_watching(10);
    ep.handle_transport_failure(20, 1);
    let out = drain(&mut ep);
    let unanswered = Event::Stopped {
        reason: StopReason::CreateUnanswered,
        failure: None,
    };
    assert!(out.contains(&unanswered), "{out:?}");
}

/// E-65: a cancel pressed while the submit is out is kept by the endpoint, across a restore
/// too, and made once the answer names the job: the job is cancelled, not left to bill. A
/// press the named job's button refuses (generation already started) is dropped, and a submit
/// that names no job leaves the press moot.
#[test]
fn a_cancel_pressed_while_creating_is_made_once_the_job_is_named() {
    let queued = br#"{"data":{"request_id":"job_8","sume_status":"queued"}}"#;
    let mut ep = CallEndpoint::submit_job(submit("intent-c"), open_api_config(json!({}))).unwrap();
    let (request_ref, ..) = sent(&drain(&mut ep))[0].clone();
    ep.cancel_pressed(10).unwrap();
    assert_eq!(drain(&mut ep), vec![Event::Idle], "nothing to cancel yet");
    assert_eq!(ep.tracker().button(), ButtonState::Unavailable);
    let saved = ep.snapshot().unwrap();
    assert!(saved.contains("\"cancel_asked\":true"), "{saved}");
    ep.handle_http(20, request_ref, answer(200, queued));
    let out = drain(&mut ep);
    let cancels: Vec<_> = sent(&out)
        .into_iter()
        .filter(|s| s.1 == "POST" && s.2.ends_with("/cancel"))
        .collect();
    assert_eq!(cancels.len(), 1, "the kept press is made: {out:?}");
    assert_eq!(ep.tracker().button(), ButtonState::Requesting);
    let shown: Vec<_> = out
        .iter()
        .filter_map(|e| match e {
            Event::Button { state } => Some(*state),
            _ => None,
        })
        .collect();
    assert_eq!(
        shown,
        vec![ButtonState::Requesting],
        "from unavailable straight to the press, never `available` in between"
    );
    assert!(!ep.snapshot().unwrap().contains("cancel_asked"));

    // Restored before the submit's answer came (the process died): the submit goes again with
    // its key, and the press is still made once the answer names the job.
    let mut ep = CallEndpoint::restore(&saved, 30).unwrap();
    let again = sent(&drain(&mut ep));
    assert_eq!(again.len(), 1, "{again:?}");
    ep.handle_http(40, again[0].0, answer(200, queued));
    let out = drain(&mut ep);
    assert!(
        sent(&out).iter().any(|s| s.2.ends_with("/cancel")),
        "{out:?}"
    );
    assert!(
        !out.contains(&Event::Button {
            state: ButtonState::Available
        }),
        "{out:?}"
    );

    // Named already processing: the press is refused by the button, and nothing is sent.
    let mut ep = CallEndpoint::submit_job(submit("intent-d"), open_api_config(json!({}))).unwrap();
    let (request_ref, ..) = sent(&drain(&mut ep))[0].clone();
    ep.cancel_pressed(10).unwrap();
    ep.handle_http(
        20,
        request_ref,
        answer(
            200,
            br#"{"data":{"request_id":"job_9","sume_status":"processing"}}"#,
        ),
    );
    let out = drain(&mut ep);
    assert!(
        !sent(&out).iter().any(|s| s.2.ends_with("/cancel")),
        "{out:?}"
    );
    assert_eq!(ep.tracker().button(), ButtonState::TooLate);

    // MCP: a tools/call whose answer is the settled result makes the press moot.
    let mut ep = CallEndpoint::call_tool(
        longcall::Model::Task2026,
        "render",
        json!({}),
        None,
        Config::default(),
    )
    .unwrap();
    drain(&mut ep);
    ep.cancel_pressed(10).unwrap();
    ep.handle_message(
        20,
        br#"{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":false}}"#,
    );
    let out = drain(&mut ep);
    assert!(
        out.iter().any(|e| matches!(e, Event::Settled { .. })),
        "{out:?}"
    );
    assert!(
        !out.iter().any(|e| matches!(e, Event::Transmit(_))),
        "nothing is sent: {out:?}"
    );
    assert!(ep.cancel_pressed(30).is_err(), "the call is settled");
}

/// An endpoint snapshot edited into what no run makes (a tracker of another model, ids the wire
/// cannot carry or given out twice) is refused, never restored to send a job route for a task.
#[test]
fn edited_endpoint_snapshots_that_no_run_could_make_are_refused() {
    let mut ep = CallEndpoint::watch(longcall::Model::Job, "job_1", Config::default()).unwrap();
    while !matches!(ep.poll_event(), Event::WakeAt { .. } | Event::Idle) {}
    let good: Value = serde_json::from_str(&ep.snapshot().unwrap()).unwrap();
    assert!(CallEndpoint::restore(&good.to_string(), 0).is_ok());
    let cases: [(&str, Value, &str); 4] = [
        (
            "/state/model",
            json!("task-2026"),
            "the tracker is of another model",
        ),
        (
            "/state/next_id",
            json!(0),
            "next_id: expected an integer from 1 to 2^63-1",
        ),
        (
            "/state/next_id",
            json!(u64::MAX),
            "next_id: expected an integer from 1 to 2^63-1",
        ),
        (
            "/state/pending",
            json!([{"id": 99, "request": null}]),
            "an id not given out yet",
        ),
    ];
    for (at, value, says) in cases {
        let mut v = good.clone();
        *v.pointer_mut(at).unwrap() = value;
        let e = CallEndpoint::restore(&v.to_string(), 0).err().unwrap();
        assert_eq!(e.code(), "snapshot_invalid", "{at}: {e}");
        assert!(e.to_string().contains(says), "{at}: {e}");
    }
}

/// D-21: a result answer that says the job is still `processing` is no result: the job is
/// polled on, its result asked again once completed, and settled with the real one.
#[test]
fn a_result_answer_not_ready_yet_is_polled_on() {
    let config = open_api_config(json!({"poll": {"jitter": "none"}}));
    let mut ep = CallEndpoint::watch(longcall::Model::Job, "job_1", config).unwrap();
    let completed = br#"{"data":{"request_id":"job_1","sume_status":"completed"}}"#;
    let mut now = 0;
    let mut results = 0;
    let mut settled = None;
    for _ in 0..8 {
        let out = drain(&mut ep);
        if let Some(e) = out.iter().find(|e| matches!(e, Event::Settled { .. })) {
            settled = Some(e.clone());
            break;
        }
        let Some((id, _, path, ..)) = sent(&out).first().cloned() else {
            now = wake(&out);
            ep.handle_timeout(now);
            continue;
        };
        now += 5;
        if path.ends_with("/status") {
            ep.handle_http(now, id, answer(200, completed));
        } else {
            results += 1;
            let body: &[u8] = if results == 1 {
                br#"{"data":{"request_id":"job_1","sume_status":"processing"}}"#
            } else {
                br#"{"data":{"sume_status":"completed","result":{"artifacts":[{"url":"https://x/1.png"}]}}}"#
            };
            ep.handle_http(now, id, answer(200, body));
        }
    }
    assert_eq!(results, 2, "the result asked again");
    let Some(Event::Settled {
        outcome, result, ..
    }) = settled
    else {
        panic!("not settled: {settled:?}");
    };
    assert_eq!(outcome, Outcome::Succeeded);
    let result: Value = result.unwrap().as_value().clone();
    assert_eq!(
        sume_open::artifact_url(&result),
        Some("https://x/1.png"),
        "{result}"
    );
}
