//! Exit codes and outputs of every subcommand.

mod support;

use std::path::PathBuf;
use std::process::{Command, Output};

use support::longcall;

fn here() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn root() -> PathBuf {
    here().join("../..")
}

fn code(o: &Output) -> i32 {
    o.status.code().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn joblog(name: &str) -> String {
    here()
        .join("tests/joblogs")
        .join(name)
        .display()
        .to_string()
}

fn tmp(name: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("longcall-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

// --- check --------------------------------------------------------------------------------------

#[test]
fn check_missing_file_is_exit_2() {
    let o = longcall(&["check", "/no/such/file.jsonl"]);
    assert_eq!(code(&o), 2);
    assert!(stdout(&o).contains("unreadable"), "{}", stdout(&o));
}

#[test]
fn a_folder_without_transcripts_checks_nothing_and_is_exit_2() {
    // Transcripts saved as `.json` in it: a wrong extension is no pass.
    let saved = tmp("saved-as.json", "{}\n");
    let dir = std::path::Path::new(&saved)
        .parent()
        .unwrap()
        .join("no-transcripts");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(&saved, dir.join("mine.json")).unwrap();
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let (dir, empty) = (dir.display().to_string(), empty.display().to_string());
    for args in [["check", dir.as_str()], ["replay", empty.as_str()]] {
        let o = longcall(&args);
        assert_eq!(code(&o), 2, "{args:?}");
        let said = String::from_utf8_lossy(&o.stderr);
        assert!(said.contains("nothing to check"), "{args:?}: {said}");
    }
}

#[test]
fn check_not_json_lines_is_exit_2() {
    let p = tmp("prose.jsonl", "this is not JSON\n");
    assert_eq!(code(&longcall(&["check", &p])), 2);
    let p = tmp("array.jsonl", "[1, 2]\n");
    assert_eq!(code(&longcall(&["check", &p])), 2);
    let p = tmp("empty.jsonl", "\n\n");
    assert_eq!(code(&longcall(&["check", &p])), 2);
    let p = tmp("other.jsonl", "{\"hello\": 1}\n");
    assert_eq!(code(&longcall(&["check", &p])), 2);
}

#[test]
fn unreadable_wins_over_violations() {
    let o = longcall(&[
        "check",
        &joblog("job-misbehaving.jsonl"),
        "/no/such/file.jsonl",
    ]);
    assert_eq!(code(&o), 2);
}

#[test]
fn clean_job_logs_pass() {
    for f in [
        "job-clean.jsonl",
        "job-cancel-too-late.jsonl",
        "open-api-clean.jsonl",
    ] {
        let o = longcall(&["check", "--strict", &joblog(f)]);
        assert_eq!(code(&o), 0, "{f}: {}", stdout(&o));
        assert!(stdout(&o).contains("0 MUST violation(s), 0 SHOULD warning(s)"));
    }
}

#[test]
fn open_api_job_log_is_read_through_the_dialect() {
    let o = longcall(&["check", &joblog("open-api-misbehaving.jsonl")]);
    assert_eq!(code(&o), 1);
    let out = stdout(&o);
    for want in [
        "open-api-misbehaving.jsonl:3: MUST resubmit_after_timeout",
        "open-api-misbehaving.jsonl:8: MUST cancel_answer_breaks_revision [job_c]",
        "open-api-misbehaving.jsonl:8: MUST illegal_transition [job_c]",
        // nsfw reads as failed, after the terminal canceled.
        "open-api-misbehaving.jsonl:10: MUST terminal_conflict [job_c]",
    ] {
        assert!(out.contains(want), "missing {want:?} in\n{out}");
    }
}

#[test]
fn misbehaving_job_log_fails_with_file_line_rule_and_level() {
    let o = longcall(&["check", &joblog("job-misbehaving.jsonl")]);
    assert_eq!(code(&o), 1);
    let out = stdout(&o);
    for want in [
        "job-misbehaving.jsonl:3: MUST resubmit_after_timeout",
        "job-misbehaving.jsonl:7: SHOULD poll_too_fast [job_c]",
        "job-misbehaving.jsonl:8: MUST illegal_transition [job_c]",
        "job-misbehaving.jsonl:10: MUST cancel_answer_breaks_revision [job_c]",
        "job-misbehaving.jsonl:12: MUST terminal_conflict [job_c]",
    ] {
        assert!(out.contains(want), "missing {want:?} in\n{out}");
    }
}

#[test]
fn json_report_is_one_document() {
    let o = longcall(&[
        "check",
        "--json",
        &joblog("job-misbehaving.jsonl"),
        &joblog("job-clean.jsonl"),
    ]);
    assert_eq!(code(&o), 1);
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["exit"], 1);
    assert_eq!(doc["files"].as_array().unwrap().len(), 2);
    assert_eq!(doc["files"][0]["format"], "job_log");
    assert_eq!(doc["files"][0]["model"], "job");
    let f = &doc["files"][0]["findings"][0];
    assert_eq!(f["rule"], "resubmit_after_timeout");
    assert_eq!(f["level"], "must");
    assert_eq!(f["line"], 3);
    assert!(doc["files"][1]["findings"].as_array().unwrap().is_empty());
}

const WARN_ONLY: &str = r#"{"seq":1,"t_ms":0,"dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{},"task":{"ttl":60000}}}}
{"seq":2,"t_ms":10,"dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"t1","status":"working","ttl":60000,"createdAt":"2026-01-01T00:00:00Z","lastUpdatedAt":"2026-01-01T00:00:00Z","pollInterval":1000}}}}
{"seq":3,"t_ms":20,"dir":"c2s","msg":{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"t1"}}}
{"seq":4,"t_ms":30,"dir":"s2c","msg":{"jsonrpc":"2.0","id":2,"result":{"taskId":"t1","status":"working","ttl":60000,"createdAt":"2026-01-01T00:00:00Z","lastUpdatedAt":"2026-01-01T00:00:00Z","pollInterval":1000}}}
{"seq":5,"t_ms":40,"dir":"c2s","msg":{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"taskId":"t1"}}}
{"seq":6,"t_ms":50,"dir":"s2c","msg":{"jsonrpc":"2.0","id":3,"result":{"taskId":"t1","status":"completed","ttl":60000,"createdAt":"2026-01-01T00:00:00Z","lastUpdatedAt":"2026-01-01T00:00:00Z","pollInterval":1000}}}
{"seq":7,"t_ms":51,"dir":"s2c","msg":null,"http":{"status":202}}
"#;

/// The first `tasks/get` (line 3) confirms the create and is never too fast; the second one
/// (line 5), 10 ms after an answer that asked for 1000 ms, is.
#[test]
fn strict_turns_warnings_into_failures() {
    let p = tmp("warn.jsonl", WARN_ONLY);
    let o = longcall(&["check", &p]);
    assert_eq!(code(&o), 0, "{}", stdout(&o));
    assert!(!stdout(&o).contains("warn.jsonl:3:"), "{}", stdout(&o));
    assert!(
        stdout(&o).contains("warn.jsonl:5: SHOULD poll_too_fast [t1]"),
        "{}",
        stdout(&o)
    );
    assert_eq!(code(&longcall(&["check", "--strict", &p])), 1);
}

#[test]
fn revision_override() {
    let p = tmp("warn2.jsonl", WARN_ONLY);
    let o = longcall(&["check", "--json", &p]);
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["files"][0]["model"], "task-2025");
    // Read as 2026, the same tasks/get lacks the capability `_meta` and the 2025 nested handle
    // is not a task at all.
    let o = longcall(&["check", "--json", "--revision", "2026", &p]);
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["files"][0]["model"], "task-2026");
    assert_eq!(code(&o), 1);
}

const MCP_2026_BAD: &str = r#"{"seq":1,"t_ms":0,"dir":"c2s","http":{"method":"POST","mcpProtocolVersion":"2026-07-28","mcpMethod":"tools/call","mcpName":"slow"},"msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{},"_meta":{"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}}
{"seq":2,"t_ms":10,"dir":"s2c","http":{"status":200},"msg":{"jsonrpc":"2.0","id":1,"result":{"resultType":"task","taskId":"T","status":"working","createdAt":"2026-11-29T15:00:00Z","lastUpdatedAt":"2026-11-29T15:00:00+00:00","ttlMs":null,"pollIntervalMs":100}}}
{"seq":3,"t_ms":500,"dir":"c2s","http":{"method":"POST","mcpProtocolVersion":"2026-07-28","mcpMethod":"tasks/get"},"msg":{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"T","_meta":{"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}}
{"seq":4,"t_ms":510,"dir":"s2c","http":{"status":200},"msg":{"jsonrpc":"2.0","id":2,"result":{"resultType":"task","taskId":"T","createdAt":"2026-11-29T15:00:00Z","lastUpdatedAt":"2026-11-29T15:00:00+00:00","ttlMs":null,"status":"input_required","inputRequests":{"k1":{"method":"elicitation/create"}}}}}
{"seq":5,"t_ms":600,"dir":"c2s","http":{"method":"POST","mcpProtocolVersion":"2026-07-28","mcpMethod":"tasks/update","mcpName":"T"},"msg":{"jsonrpc":"2.0","id":3,"method":"tasks/update","params":{"taskId":"T","inputResponses":{"k1":{"action":"accept"}},"_meta":{"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}}
{"seq":6,"t_ms":610,"dir":"s2c","http":{"status":200},"msg":{"jsonrpc":"2.0","id":3,"result":{"resultType":"complete"}}}
{"seq":7,"t_ms":700,"dir":"c2s","http":{"method":"POST","mcpProtocolVersion":"2026-07-28","mcpMethod":"tasks/get","mcpName":"T"},"msg":{"jsonrpc":"2.0","id":4,"method":"tasks/get","params":{"taskId":"T","_meta":{"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}}
{"seq":8,"t_ms":710,"dir":"s2c","http":{"status":200},"msg":{"jsonrpc":"2.0","id":4,"result":{"resultType":"complete","taskId":"T","createdAt":"2026-11-29T15:00:00Z","lastUpdatedAt":"2026-11-29T15:00:00+00:00","ttlMs":null,"status":"working"}}}
{"seq":9,"t_ms":900,"dir":"c2s","http":{"method":"POST","mcpProtocolVersion":"2026-07-28","mcpMethod":"tasks/update","mcpName":"T"},"msg":{"jsonrpc":"2.0","id":5,"method":"tasks/update","params":{"taskId":"T","inputResponses":{"k1":{"action":"accept"}},"_meta":{"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}}
{"seq":10,"t_ms":910,"dir":"s2c","http":{"status":200},"msg":{"jsonrpc":"2.0","id":5,"result":{"resultType":"complete"}}}
{"seq":11,"t_ms":1000,"dir":"c2s","http":{"method":"POST","mcpProtocolVersion":"2026-07-28","mcpMethod":"tasks/get","mcpName":"T"},"msg":{"jsonrpc":"2.0","id":6,"method":"tasks/get","params":{"taskId":"T","_meta":{"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}}
{"seq":12,"t_ms":1010,"dir":"s2c","http":{"status":200},"msg":{"jsonrpc":"2.0","id":6,"result":{"resultType":"complete","taskId":"T","createdAt":"2026-11-29T15:00:00Z","lastUpdatedAt":"2026-11-29T15:00:00+00:00","ttlMs":null,"status":"input_required","inputRequests":{"k1":{"method":"elicitation/create"}}}}}
{"seq":13,"t_ms":1200,"dir":"c2s","http":{"method":"POST","mcpProtocolVersion":"2026-07-28","mcpMethod":"tasks/get","mcpName":"T"},"msg":{"jsonrpc":"2.0","id":7,"method":"tasks/get","params":{"taskId":"T","_meta":{"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}}
{"seq":14,"t_ms":1210,"dir":"s2c","http":{"status":200},"msg":{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","taskId":"T","createdAt":"2026-11-29T15:00:00Z","lastUpdatedAt":"2026-11-29T15:00:00+00:00","ttlMs":null,"status":"failed","result":{"content":[],"isError":true}}}}
{"seq":15,"t_ms":1400,"dir":"c2s","http":{"method":"POST","mcpProtocolVersion":"2026-07-28","mcpMethod":"tasks/get","mcpName":"T"},"msg":{"jsonrpc":"2.0","id":8,"method":"tasks/get","params":{"taskId":"T","_meta":{"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}}
{"seq":16,"t_ms":1410,"dir":"s2c","http":{"status":200},"msg":{"jsonrpc":"2.0","id":8,"result":{"resultType":"complete","taskId":"T","createdAt":"2026-11-29T15:00:00Z","lastUpdatedAt":"2026-11-29T15:00:00+00:00","ttlMs":null,"status":"completed","result":{"content":[]}}}}
{"seq":17,"t_ms":1600,"dir":"c2s","http":{"method":"POST","mcpProtocolVersion":"2026-07-28","mcpMethod":"tasks/result","mcpName":"T"},"msg":{"jsonrpc":"2.0","id":9,"method":"tasks/result","params":{"taskId":"T","_meta":{"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}}
{"seq":18,"t_ms":1610,"dir":"s2c","http":{"status":200},"msg":{"jsonrpc":"2.0","id":9,"result":{"content":[]}}}
"#;

/// Rules M-6, M-4, E-47.
#[test]
fn synthetic_2026_violations_are_each_found() {
    let p = tmp("bad2026.jsonl", MCP_2026_BAD);
    let o = longcall(&["check", "--json", &p]);
    assert_eq!(code(&o), 1);
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let got: Vec<(u64, String)> = doc["files"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["line"].as_u64().unwrap(),
                f["rule"].as_str().unwrap().to_string(),
            )
        })
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    let want: Vec<(u64, String)> = [
        (3, "mcp_name_header"),
        (4, "wrong_result_type"),
        (9, "input_answered_twice"),
        (12, "input_key_reused"),
        (14, "result_contradicts_status"),
        (16, "terminal_conflict"),
        (17, "wrong_revision_method"),
    ]
    .iter()
    .map(|(l, r)| (*l, r.to_string()))
    .collect();
    assert_eq!(got, want, "{}", stdout(&o));
}

const CREATE_NO_TTL: &str = r#"{"seq":1,"t_ms":0,"dir":"c2s","http":{"method":"POST","mcpProtocolVersion":"2026-07-28","mcpMethod":"tools/call","mcpName":"slow"},"msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{},"_meta":{"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}}
{"seq":2,"t_ms":10,"dir":"s2c","http":{"status":200},"msg":{"jsonrpc":"2.0","id":1,"result":{"resultType":"task","taskId":"T","status":"working","createdAt":"2026-11-29T15:00:00Z","lastUpdatedAt":"2026-11-29T15:00:00Z"}}}
"#;

/// Shape rules come from the core's wire codec (`longcall::wire::mcp2026::read_create`).
#[test]
fn codec_shape_violations_are_reported() {
    let p = tmp("nottl.jsonl", CREATE_NO_TTL);
    let o = longcall(&["check", "-v", &p]);
    assert_eq!(code(&o), 1);
    let out = stdout(&o);
    assert!(
        out.contains("nottl.jsonl:2: MUST missing_field [T]: ttlMs"),
        "{out}"
    );
    assert!(
        out.contains("read as task-2026 (MCP-Protocol-Version header), 1 handle(s)"),
        "{out}"
    );
}

const RESUBMIT: &str = r#"{"seq":1,"t_ms":0,"dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"render","arguments":{"n":1},"task":{}}}}
{"seq":2,"t_ms":30000,"dir":"c2s","msg":{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"render","arguments":{"n":1},"task":{}}}}
"#;

#[test]
fn resubmitting_an_unanswered_call_is_a_must() {
    let p = tmp("resubmit.jsonl", RESUBMIT);
    let o = longcall(&["check", &p]);
    assert_eq!(code(&o), 1);
    assert!(
        stdout(&o).contains("resubmit.jsonl:2: MUST resubmit_after_timeout"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn closed_stdout_is_not_a_panic() {
    use std::io::Read;
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_longcall"))
        .args(["diagram"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    child.wait().unwrap();
    assert!(!err.contains("panicked"), "{err}");
}

// --- replay -------------------------------------------------------------------------------------

#[test]
fn replay_passing_and_failing_vectors() {
    let pass = here()
        .join("tests/vectors/cli-job-queued.json")
        .display()
        .to_string();
    let fail = here()
        .join("tests/vectors-failing/cli-job-queued-wrong.json")
        .display()
        .to_string();
    let o = longcall(&["replay", &pass]);
    assert_eq!(code(&o), 0, "{}", stdout(&o));
    assert!(stdout(&o).starts_with("pass "));
    let o = longcall(&["replay", &pass, &fail]);
    assert_eq!(code(&o), 1);
    let out = stdout(&o);
    assert!(out.contains("FAIL "), "{out}");
    assert!(out.contains("first mismatch: step 0 (at 0 ms)"), "{out}");
    assert!(out.contains(r#"- {"at":2000,"type":"wake_at"}"#), "{out}");
    assert!(out.contains(r#"+ {"at":1000,"type":"wake_at"}"#), "{out}");
    assert!(out.contains("1 of 2 vector(s) pass"), "{out}");
    let o = longcall(&["replay", "--json", &pass, &fail]);
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["passed"], 1);
    assert_eq!(doc["failed"], 1);
    assert_eq!(doc["vectors"][1]["first_mismatch"], 0);
}

#[test]
fn replay_unusable_vector_fails() {
    let p = tmp("bad-vector.json", "{\"name\": 1}");
    assert_eq!(code(&longcall(&["replay", &p])), 1);
    assert_eq!(code(&longcall(&["replay", "/no/such/vector.json"])), 1);
}

#[test]
fn replay_bundled_vectors_when_present() {
    let dir = root().join("tests/vectors");
    if !dir.exists() {
        eprintln!("skip: no tests/vectors yet");
        return;
    }
    let o = longcall(&["replay", &dir.display().to_string()]);
    assert_eq!(code(&o), 0, "{}", stdout(&o));
}

// --- plan ---------------------------------------------------------------------------------------

/// Rules S-6, P-1.
#[test]
fn plan_poll_table_equals_core_plan() {
    let o = longcall(&["plan", "--jitter", "none", "--count", "6"]);
    assert_eq!(code(&o), 0);
    let out = stdout(&o);
    assert!(out.contains("poll     at (ms)  delay (ms)"), "{out}");
    let ats: Vec<u64> = out
        .lines()
        .skip(2)
        .map(|l| l.split_whitespace().nth(1).unwrap().parse().unwrap())
        .collect();
    let policy = longcall::poll::PollPolicy {
        jitter: longcall::poll::Jitter::None,
        ..Default::default()
    };
    assert_eq!(ats, longcall::poll::plan(policy, 1, 0, 6, None).unwrap());
    assert_eq!(ats, [1000, 3000, 7000, 15000, 31000, 61000]);
}

#[test]
fn plan_server_interval_is_a_floor_and_seeded_jitter_is_reproducible() {
    let a = stdout(&longcall(&[
        "plan",
        "--server-interval",
        "5000",
        "--count",
        "5",
        "--seed",
        "9",
        "--json",
    ]));
    let b = stdout(&longcall(&[
        "plan",
        "--server-interval",
        "5000",
        "--count",
        "5",
        "--seed",
        "9",
        "--json",
    ]));
    assert_eq!(a, b);
    let doc: serde_json::Value = serde_json::from_str(&a).unwrap();
    for row in doc["polls"].as_array().unwrap() {
        assert!(row["delay_ms"].as_u64().unwrap() >= 5000, "{row}");
    }
}

#[test]
fn plan_wait_chunks_dedups_and_leaves_terminal_out() {
    let o = longcall(&["plan", "--wave", "45", "--terminal", "job_3", "--json"]);
    assert_eq!(code(&o), 0);
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let sizes: Vec<usize> = doc["calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["job_ids"].as_array().unwrap().len())
        .collect();
    assert_eq!(sizes, [20, 20, 4]);
    assert_eq!(doc["already_terminal"], serde_json::json!(["job_3"]));
    let o = longcall(&["plan", "--wait", "a", "b", "a", "c", "--terminal", "c"]);
    let out = stdout(&o);
    assert!(out.contains("    1     2  a b"), "{out}");
    assert!(out.contains("duplicates removed: a"), "{out}");
    assert!(out.contains("already terminal, left out: c"), "{out}");
}

#[test]
fn plan_bad_parameters_exit_2() {
    assert_eq!(code(&longcall(&["plan", "--multiplier", "0.5"])), 2);
    assert_eq!(code(&longcall(&["plan", "--initial", "0"])), 2);
    assert_eq!(code(&longcall(&["plan", "--count", "20000"])), 2);
    assert_eq!(code(&longcall(&["plan", "--wait", ""])), 2);
}

// --- diagram and README -------------------------------------------------------------------------

#[test]
fn diagram_is_generated_from_the_table() {
    let out = stdout(&longcall(&["diagram", "--model", "job"]));
    assert!(
        out.starts_with("<!-- diagram:job -->\n```mermaid\nstateDiagram-v2\n"),
        "{out}"
    );
    assert!(out.contains("    queued --> canceled\n"));
    assert!(
        !out.contains("processing --> canceled"),
        "never processing -> canceled"
    );
    assert!(!out.contains("diagram:task"));
    for (from, tos) in longcall::lifecycle::JOB_TABLE {
        for to in *tos {
            assert!(out.contains(&format!("    {from} --> {to}\n")));
        }
    }
}

/// README.md embeds `longcall diagram` output between `<!-- diagram:M -->` markers.
///
/// Rules S-6.
#[test]
fn readme_diagrams_match_the_generated_text() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap_or_default();
    for model in ["task", "job"] {
        let generated = stdout(&longcall(&["diagram", "--model", model]));
        let (open, close) = (
            format!("<!-- diagram:{model} -->"),
            format!("<!-- /diagram:{model} -->"),
        );
        match (readme.find(&open), readme.find(&close)) {
            (Some(a), Some(b)) if a < b => {
                let embedded = &readme[a..b + close.len()];
                assert_eq!(
                    embedded.trim(),
                    generated.trim(),
                    "README.md's {model} diagram is stale; paste `longcall diagram --model {model}`"
                );
            }
            _ => eprintln!(
                "skip: README.md has no {open} ... {close} markers yet; paste this block:\n{generated}"
            ),
        }
    }
}

// --- default run --------------------------------------------------------------------------------

#[test]
fn default_run_summarises_bundled_data() {
    let o = longcall(&[]);
    let out = stdout(&o);
    assert!(out.contains("check: 28 bundled transcript(s)"), "{out}");
    assert!(
        out.contains("  sdk-ts-1.32.2_2025-11-25/stdio/ (task-2025)\n"),
        "{out}"
    );
    assert!(
        out.contains("    warn completed-iserror.jsonl: tool_error_not_failed\n"),
        "{out}"
    );
    assert!(out.contains("    ok   unknown-task.jsonl\n"), "{out}");
    // The default run demonstrates findings; it fails only on unreadable data or a failing vector.
    assert!(code(&o) == 0 || out.contains("replay: "), "{out}");
}

#[test]
fn help_lists_subcommands() {
    let out = stdout(&longcall(&["--help"]));
    for s in ["check", "replay", "plan", "diagram"] {
        assert!(out.contains(s), "{out}");
    }
}

/// What `serve-jobs` serves is in its help: the catalog (any other model a 400) and what a job
/// costs, so a user can tell billed from refunded without reading its code.
#[test]
fn serve_jobs_help_says_its_catalog_and_what_is_refunded() {
    let out = stdout(&longcall(&["serve-jobs", "--help"]));
    for s in [
        "demo-image",
        "demo-rejected",
        "any other model is a 400",
        "a submit reserves one",
        "canceled, failed or expired job gives it back",
    ] {
        assert!(out.replace('\n', " ").contains(s), "{s}: {out}");
    }
}
