//! `longcall serve-jobs` on loopback: the reference Open API job server answers real HTTP, and
//! its job log passes `longcall check`.

mod support;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::Command;
use std::time::Duration;

use support::ServeJobs;

/// One HTTP/1.1 request on a fresh connection; returns (status, head, body).
fn send(
    addr: &str,
    method: &str,
    path: &str,
    headers: &[&str],
    body: &str,
) -> (u16, String, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut req = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for h in headers {
        req.push_str(h);
        req.push_str("\r\n");
    }
    req.push_str("\r\n");
    req.push_str(body);
    s.write_all(req.as_bytes()).unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, head.to_ascii_lowercase(), body.to_string())
}

#[test]
fn serves_the_open_api_on_loopback_and_logs_a_clean_job_log() {
    let log = std::env::temp_dir().join(format!("longcall-serve-{}.jsonl", std::process::id()));
    let log_arg = log.display().to_string();
    let server = ServeJobs::start(&[
        "--queue-wait-ms",
        "0",
        "--generation-ms",
        "0",
        "--max-seconds",
        "30",
        "--log",
        &log_arg,
    ]);
    let url = &server.url;
    let addr = url.strip_prefix("http://").unwrap().to_string();
    assert!(addr.starts_with("127.0.0.1:"), "{url}");

    let auth = "Authorization: Bearer k1";
    let (status, head, body) = send(&addr, "GET", "/v1/open/catalog/demo-video", &[auth], "");
    assert_eq!(status, 200, "{body}");
    assert!(body.contains(r#""kind":"video""#), "{body}");
    assert!(head.contains("x-sume-request-id: req_"), "{head}");
    let submit = r#"{"model":"demo-video","prompt":"a harbour"}"#;
    let (status, _, body) = send(
        &addr,
        "POST",
        "/v1/video-router/generate",
        &[auth, "Idempotency-Key: i-1"],
        submit,
    );
    assert_eq!(status, 200, "{body}");
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    let id = v["data"]["request_id"].as_str().unwrap().to_string();
    // Queue wait and generation are 0 ms: the next request finds the job completed.
    std::thread::sleep(Duration::from_millis(20));
    let (status, _, body) = send(&addr, "GET", &format!("/v1/jobs/{id}/status"), &[auth], "");
    assert_eq!(status, 200, "{body}");
    assert!(body.contains(r#""sume_status":"completed""#), "{body}");
    let (status, _, body) = send(
        &addr,
        "GET",
        &format!("/v1/jobs/{id}/status"),
        &["Authorization: Bearer k2"],
        "",
    );
    assert_eq!(status, 404, "{body}");
    assert!(body.contains(r#""code":"not_found""#), "{body}");
    let (_, _, counters) = send(&addr, "GET", "/_counters", &[], "");
    let c: serde_json::Value = serde_json::from_str(&counters).unwrap();
    assert_eq!(c["jobs_per_idempotency_key"]["i-1"], 1);
    drop(server);

    let o = Command::new(env!("CARGO_BIN_EXE_longcall"))
        .args(["check", "--strict"])
        .arg(&log)
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}");
    let _ = std::fs::remove_file(&log);
}
