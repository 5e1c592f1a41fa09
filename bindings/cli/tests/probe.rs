//! `longcall probe`'s files and exits: its shrunk transcripts and job logs reproduce under
//! `longcall check`, a transcript with two principals judges each as its own client, an
//! unusable target is exit 2, and the reference job server gives no finding.
//!
//! The transcripts in `tests/probe/` were written by `longcall probe` against the reference MCP
//! tasks server and its broken variants (`tests/interop/mutants/proxy.mjs`), the `jobs-*` job
//! logs by `longcall probe --jobs` against the job mutants (`tests/interop/mutants/jobs-proxy.mjs`);
//! the interop legs `probe.mjs` and `probe-jobs.mjs` run the probe itself against live servers.

mod support;

use std::path::PathBuf;

use serde_json::Value;
use support::{longcall, ServeJobs};

fn file(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/probe")
        .join(name)
        .display()
        .to_string()
}

/// `(rule, level)` of every finding `longcall check --json` reports on one file.
fn findings(path: &str) -> Vec<(String, String)> {
    let o = longcall(&["check", "--json", path]);
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    doc["files"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_string(),
                f["level"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn shrunk_transcripts_reproduce_under_check() {
    for (name, rule) in [
        ("terminal-flip.jsonl", "terminal_conflict"),
        ("key-reappears.jsonl", "input_key_reused"),
        ("get-404-fresh.jsonl", "created_task_not_found"),
        ("cancelled-unasked.jsonl", "cancelled_unasked"),
        ("foreign-403.jsonl", "foreign_id_distinguishable"),
        ("rate-limit.jsonl", "poll_refused_at_floor"),
        // A real server: the SDK 1.32.2 2025 server over HTTP, its tool_error_completed task.
        (
            "sdk-1.32.2-http-tool-error-completed.jsonl",
            "tool_error_not_failed",
        ),
    ] {
        let found = findings(&file(name));
        assert!(
            found.iter().any(|(r, _)| r == rule),
            "{name}: expected {rule}, got {found:?}"
        );
    }
}

/// Rules X-2, X-6, X-7 to X-14: the shrunk job logs `longcall probe --jobs` wrote against the
/// job mutants (`tests/interop/mutants/jobs-proxy.mjs`) reproduce under `longcall check`, with
/// the level each rule has.
#[test]
fn shrunk_job_logs_reproduce_under_check() {
    for (name, rule, level) in [
        (
            "jobs-canceled-after-409.jsonl",
            "illegal_transition",
            "must",
        ),
        (
            "jobs-foreign-403.jsonl",
            "foreign_id_distinguishable",
            "must",
        ),
        ("jobs-terminal-flip.jsonl", "terminal_conflict", "must"),
        (
            "jobs-queue-full-no-retry-after.jsonl",
            "retry_after_missing",
            "should",
        ),
        (
            "jobs-retry-after-ignored.jsonl",
            "poll_refused_at_floor",
            "should",
        ),
        (
            "jobs-cancel-replay-409.jsonl",
            "cancel_answer_breaks_revision",
            "must",
        ),
        (
            "jobs-status-404-fresh.jsonl",
            "created_job_not_found",
            "must",
        ),
        (
            "jobs-key-ignored.jsonl",
            "idempotency_key_not_replayed",
            "must",
        ),
        ("jobs-no-refund.jsonl", "cancel_not_refunded", "must"),
        ("jobs-wait-early.jsonl", "wait_condition_broken", "must"),
    ] {
        let found = findings(&file(name));
        assert!(
            found.iter().any(|(r, l)| r == rule && l == level),
            "{name}: expected {rule} ({level}), got {found:?}"
        );
    }
}

/// Rule E-52.
#[test]
fn each_principal_is_its_own_client() {
    // The reference server answered the second principal's requests for the first one's tasks
    // exactly like unknown ids: clean.
    let two = file("reference-two-principals.jsonl");
    assert_eq!(findings(&two), vec![]);
    // The same lines read as one client: its own tasks "not found" and cancels refused.
    let text = std::fs::read_to_string(&two).unwrap();
    let one = std::env::temp_dir().join(format!("longcall-probe-one-{}.jsonl", std::process::id()));
    std::fs::write(
        &one,
        text.replace("\"principal\":\"b\"", "\"principal\":\"a\""),
    )
    .unwrap();
    let found = findings(&one.display().to_string());
    assert!(!found.is_empty(), "one principal: expected findings");
}

#[test]
fn unusable_target_is_exit_2_with_the_seed_first() {
    let o = longcall(&[
        "probe",
        "http://127.0.0.1:9/mcp",
        "--seed",
        "42",
        "--out",
        &std::env::temp_dir()
            .join("longcall-probe-test")
            .display()
            .to_string(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(out.starts_with("longcall probe: seed 42"), "{out}");
    assert!(out.contains("unusable"), "{out}");
    let o = longcall(&["probe", "--json", "--stdio", "true"]);
    assert_eq!(o.status.code(), Some(2));
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["exit"], 2);
    assert!(doc["seed"].is_u64());
}

/// `--tool` and `--model` arguments that are not JSON are a usage error: nothing is started,
/// nothing sent, no transcript written (it used to be an "unusable" run after connecting).
#[test]
fn tool_arguments_that_are_not_json_are_a_usage_error() {
    let out = std::env::temp_dir().join(format!("longcall-probe-usage-{}", std::process::id()));
    for flag in ["--tool", "--model"] {
        let o = longcall(&[
            "probe",
            "http://127.0.0.1:9/mcp",
            flag,
            "bake={not json",
            "--out",
            &out.display().to_string(),
        ]);
        assert_eq!(o.status.code(), Some(2));
        let err = String::from_utf8(o.stderr).unwrap();
        assert!(err.contains("the arguments of bake are not JSON"), "{err}");
        assert!(!out.exists(), "nothing written");
    }
}

/// A 2025 stdio server: it declares task support and lists one task tool; with `mute` its
/// `tools/call` makes a task whose `tasks/get` it never answers, with `plain` the call answers
/// a plain result (no task).
const STDIO_SERVER: &str = r#"
import sys, json
mode = sys.argv[1]
for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m:
        continue
    method = m.get("method")
    if method == "initialize":
        r = {"protocolVersion": "2025-11-25", "serverInfo": {"name": mode, "version": "1"},
             "capabilities": {"tools": {}, "tasks": {"requests": {"tools": {"call": {}}}}}}
    elif method == "tools/list":
        r = {"tools": [{"name": "bake", "inputSchema": {"type": "object"},
                        "execution": {"taskSupport": "optional"}}]}
    elif method == "tools/call" and mode == "plain":
        r = {"content": [{"type": "text", "text": "baked at once"}]}
    elif method == "tools/call":
        r = {"task": {"taskId": "t1", "status": "working", "ttl": 60000, "pollInterval": 100,
                      "createdAt": "2026-12-04T00:00:00Z", "lastUpdatedAt": "2026-12-04T00:00:00Z"}}
    else:
        continue
    print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": r}), flush=True)
"#;

/// `longcall probe --json` against [`STDIO_SERVER`] in `mode`: its exit code and document.
fn probe_stdio_server(mode: &str) -> (Option<i32>, Value) {
    let dir = std::env::temp_dir().join(format!("longcall-probe-{mode}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("server.py");
    std::fs::write(&script, STDIO_SERVER).unwrap();
    let o = longcall(&[
        "probe",
        "--json",
        "--revision",
        "2025",
        "--seed",
        "1",
        "--max-seconds",
        "10",
        "--answer-seconds",
        "1",
        "--shrink-seconds",
        "0",
        "--out",
        &dir.join("out").display().to_string(),
        "--stdio",
        "python3",
        &script.display().to_string(),
        mode,
    ]);
    let _ = std::fs::remove_dir_all(&dir);
    (o.status.code(), serde_json::from_slice(&o.stdout).unwrap())
}

/// A server that makes a task and then never answers `tasks/get`: the run ends unusable (exit
/// 2) naming the unanswered request after `--answer-seconds`, where it used to end clean (exit
/// 0, "no finding"), a false pass for a CI job.
#[test]
fn a_server_that_stops_answering_is_unusable_not_clean() {
    let (code, doc) = probe_stdio_server("mute");
    assert_eq!(code, Some(2), "{doc}");
    assert_eq!(doc["exit"], 2);
    assert!(doc["tasks"].as_u64() >= Some(1), "a task was made: {doc}");
    assert!(
        doc["unusable"]
            .as_str()
            .is_some_and(|u| u.contains("got no answer in 1 s")),
        "{doc}"
    );
}

/// A server whose calls make no task: a few calls say so, and the run stops there (it used to
/// call the tool for the whole run, hundreds of times, before saying it was unusable).
#[test]
fn calls_that_make_no_task_end_the_run_early() {
    let (code, doc) = probe_stdio_server("plain");
    assert_eq!(code, Some(2), "{doc}");
    assert_eq!(doc["tasks"], 0);
    assert!(
        doc["unusable"]
            .as_str()
            .is_some_and(|u| u.contains("no request made a task")),
        "{doc}"
    );
    let requests = doc["requests"].as_u64().unwrap();
    assert!(requests <= 10, "{requests} requests");
}

/// A server whose `tools/list` fails leaves the probe unusable (exit 2), and what was exchanged
/// up to there is written beside the runs, named in the message.
#[test]
fn an_unusable_tool_list_keeps_the_exchange() {
    let server = tiny_http::Server::http("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", server.server_addr().to_ip().unwrap());
    let serving = std::thread::spawn(move || {
        for _ in 0..2 {
            let Ok(mut req) = server.recv() else { return };
            let mut body = String::new();
            let _ = req.as_reader().read_to_string(&mut body);
            let m: Value = serde_json::from_str(&body).unwrap();
            let answer = if m["method"] == "server/discover" {
                serde_json::json!({"jsonrpc": "2.0", "id": m["id"], "result": {"supportedVersions": ["2026-07-28"]}})
            } else {
                serde_json::json!({"jsonrpc": "2.0", "id": m["id"], "error": {"code": -32603, "message": "tools are down"}})
            };
            let header = tiny_http::Header::from_bytes("content-type", "application/json").unwrap();
            let _ = req
                .respond(tiny_http::Response::from_string(answer.to_string()).with_header(header));
        }
    });
    let out = std::env::temp_dir().join(format!("longcall-probe-unusable-{}", std::process::id()));
    let o = longcall(&[
        "probe",
        &url,
        "--seed",
        "7",
        "--out",
        &out.display().to_string(),
    ]);
    serving.join().unwrap();
    assert_eq!(o.status.code(), Some(2));
    let said = String::from_utf8(o.stdout).unwrap();
    assert!(
        said.contains("tools/list failed") && said.contains("tools are down"),
        "{said}"
    );
    let kept = std::fs::read_to_string(out.join("probe-7-unusable.jsonl")).unwrap();
    let methods: Vec<Value> = kept
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["msg"]["method"].clone())
        .collect();
    assert_eq!(methods[0], "server/discover");
    assert!(methods.contains(&Value::from("tools/list")), "{kept}");
    let _ = std::fs::remove_dir_all(&out);
}

/// `longcall probe ARGS` writing into a folder of its own under the temporary one, removed after.
fn probe_out_of_tree(name: &str, args: &[&str]) -> std::process::Output {
    let out = std::env::temp_dir().join(format!("longcall-probe-{name}-{}", std::process::id()));
    let out_arg = out.display().to_string();
    let mut all = vec!["probe"];
    all.extend_from_slice(args);
    all.extend(["--out", &out_arg]);
    let o = longcall(&all);
    let _ = std::fs::remove_dir_all(&out);
    o
}

/// A URL that is no MCP endpoint (here a job API's): both revisions' openings got an HTTP answer
/// without a JSON-RPC one, and the run says so with the status and what to try, not "no answer".
#[test]
fn a_url_that_is_no_mcp_endpoint_is_said_with_its_status() {
    let server = ServeJobs::start(&["--max-seconds", "30"]);
    let o = probe_out_of_tree("nomcp", &[&server.url, "--seed", "3"]);
    assert_eq!(o.status.code(), Some(2));
    let said = String::from_utf8_lossy(&o.stdout);
    assert!(said.contains("initialize failed: HTTP 4"), "{said}");
    assert!(
        said.contains("is this the MCP endpoint? A job API is probed with --jobs"),
        "{said}"
    );
    assert!(!said.contains("no finding"), "{said}");
}

/// `--jobs` at a base URL that is no job API (every submit 404): said after three submits, with
/// the status, instead of after the whole run's budget as "nothing was probed".
#[test]
fn a_base_url_that_is_no_job_api_is_said_early() {
    let server = ServeJobs::start(&["--max-seconds", "30"]);
    let base = format!("{}/mcp", server.url);
    let args = [
        "--jobs", &base, "--auth", "Bearer a", "--seed", "5", "--json",
    ];
    let o = probe_out_of_tree("nojobs", &args);
    assert_eq!(o.status.code(), Some(2));
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    let said = doc["unusable"].as_str().unwrap_or_default();
    assert!(
        said.starts_with("3 submits made no job, answered HTTP 404: is "),
        "{doc}"
    );
    assert!(
        said.contains("/mcp the base URL of a Sume Open API?"),
        "{doc}"
    );
    assert!(doc["requests"].as_u64() <= Some(10), "{doc}");
}

/// Rules X-7 to X-14 stay quiet on the reference job server: `longcall probe --jobs` against
/// `longcall serve-jobs` on loopback finds nothing, even with SHOULDs failing, and its job log
/// checks clean under `longcall check` too.
#[test]
fn the_reference_job_server_gives_no_finding() {
    let server = ServeJobs::start(&[
        "--queue-wait-ms",
        "300",
        "--generation-ms",
        "300",
        "--queue-limit",
        "2",
        "--credits-per-key",
        "10000",
        "--max-seconds",
        "60",
    ]);
    let out = std::env::temp_dir().join(format!("longcall-probe-jobs-{}", std::process::id()));
    let o = longcall(&[
        "probe",
        "--jobs",
        &server.url,
        "--auth",
        "Bearer a",
        "--auth",
        "Bearer b",
        "--seed",
        "11",
        "--max-steps",
        "40",
        "--max-seconds",
        "20",
        "--strict",
        "--json",
        "--out",
        &out.display().to_string(),
    ]);
    drop(server);
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["exit"], 0, "{doc:#}");
    assert!(doc["jobs"].as_u64().unwrap() > 0, "{doc:#}");
    assert_eq!(doc["revision"], "Open API + MCP job tools");
    let log = doc["transcript"].as_str().unwrap();
    assert_eq!(findings(log), vec![]);
}

#[test]
fn a_job_probe_needs_a_key() {
    let o = longcall(&["probe", "--jobs", "http://127.0.0.1:9", "--seed", "3"]);
    assert_eq!(o.status.code(), Some(2));
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(out.starts_with("longcall probe: seed 3"), "{out}");
    assert!(out.contains("--auth"), "{out}");
}
