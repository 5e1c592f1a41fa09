//! D-20: the reference job server holds a `jobs_wait` until its condition or its timeout.

use longcall::server::{OpenApiConfig, OpenApiServer, MAX_HOLD_SECONDS};
use longcall::wire::sume_open::HttpRequest;
use serde_json::{json, Value};

fn post(key: &str, path: &str, body: Value) -> HttpRequest {
    HttpRequest {
        method: "POST".into(),
        path: path.into(),
        headers: vec![("Authorization".into(), format!("Bearer {key}"))],
        body: Some(body.to_string()),
    }
}

fn submit(server: &mut OpenApiServer, key: &str, intent: &str) -> String {
    let a = server.handle(
        0,
        &post(
            key,
            "/jobs",
            json!({"model": "demo-image", "idempotency_key": intent}),
        ),
    );
    let b: Value = serde_json::from_str(&a.body).unwrap();
    b["job"]["id"].as_str().unwrap().to_string()
}

/// D-20: held until the timeout when the condition never holds in time (`timed_out: true`),
/// released at once by a cancel that ends the job, and answered at once when it already holds
/// or asks no timeout.
#[test]
fn held_waits_answer_at_the_condition_or_the_timeout() {
    let config = OpenApiConfig {
        queue_wait_ms: 1_000_000,
        generation_ms: 1_000_000,
        ..OpenApiConfig::default()
    };
    let mut server = OpenApiServer::new(config).unwrap();
    let a = submit(&mut server, "k1", "i1");
    let b = submit(&mut server, "k1", "i2");
    let wait = |id: &str, t: u64| json!({"job_ids": [id], "wait_for": "all", "timeout_seconds": t});
    // No timeout asked: answered at once, as `handle` does.
    let now = server.handle_held(0, 1, &post("k1", "/jobs/wait", wait(&a, 0)));
    assert!(now.unwrap().body.contains(r#""timed_out":true"#));
    // Held until its 2 s timeout: the job is still queued then.
    assert!(server
        .handle_held(0, 2, &post("k1", "/jobs/wait", wait(&a, 2)))
        .is_none());
    // Held, then released by the cancel that ends job b.
    assert!(server
        .handle_held(0, 3, &post("k1", "/jobs/wait", wait(&b, 30)))
        .is_none());
    assert_eq!(server.poll_held(), None);
    assert_eq!(server.poll_timeout(), Some(2_000));
    let cancel = post(
        "k1",
        &format!("/jobs/{b}/cancel"),
        json!({"idempotency_key": "c1"}),
    );
    assert_eq!(server.handle(500, &cancel).status, 200);
    let (token, answer) = server.poll_held().unwrap();
    assert_eq!(token, 3);
    assert!(answer.body.contains(r#""timed_out":false"#) && answer.body.contains("canceled"));
    assert_eq!(server.poll_held(), None);
    server.handle_timeout(2_000);
    let (token, answer) = server.poll_held().unwrap();
    assert_eq!((token, answer.status), (2, 200));
    assert!(answer.body.contains(r#""timed_out":true"#));
    // A wait asking more than the cap is held at most MAX_HOLD_SECONDS.
    assert!(server
        .handle_held(3_000, 4, &post("k1", "/jobs/wait", wait(&a, 3_600)))
        .is_none());
    let cap = 3_000 + MAX_HOLD_SECONDS * 1000;
    assert_eq!(server.poll_timeout(), Some(cap));
    server.handle_timeout(cap);
    let (token, answer) = server.poll_held().unwrap();
    assert_eq!(token, 4);
    assert!(answer.body.contains(r#""timed_out":true"#));
}
