//! `longcall watch-demo`: a host on a SQLite store that dies part-way and resumes every call.
//! The run's summary comes from the reference servers' own counters and the store; these tests
//! hold it to the invariants (R-1..R-7 of `longcall::watch`), and read the file afterwards.

mod support;

use std::path::PathBuf;

use serde_json::Value;
use support::longcall;

fn db(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("longcall-watch-demo-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", p.display()));
    }
    p
}

fn n(summary: &Value, field: &str) -> u64 {
    summary[field]
        .as_u64()
        .unwrap_or_else(|| panic!("{field} in {summary}"))
}

#[test]
fn a_host_that_dies_part_way_settles_every_call_exactly_once() {
    let path = db("run.sqlite");
    let o = longcall(&["watch-demo", "--db", path.to_str().unwrap(), "--json"]);
    let text = String::from_utf8(o.stdout).unwrap();
    assert_eq!(o.status.code(), Some(0), "{text}");
    let s: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(s["host_errors"], serde_json::json!([]), "{s}");

    // The batch: MCP tasks of both revisions and jobs.
    assert_eq!(n(&s, "calls"), 24);
    for model in ["task-2026", "task-2025", "job"] {
        assert_eq!(s["by_model"][model], 8, "{s}");
    }
    // The host died part-way and resumed the calls not settled yet from their records.
    let died = s["died_at_ms"].as_u64().expect("the host died");
    assert!(died >= 3_000, "{s}");
    let resumed = n(&s, "records_resumed");
    assert!(resumed > 0 && resumed < 24, "{s}");
    assert!(
        n(&s, "simulated_ms") > died,
        "the run went on after the restart: {s}"
    );

    // Every call settled once, with the outcome its server's worker wrote.
    assert_eq!(n(&s, "settled_exactly_once"), 24, "{s}");
    let outcomes: u64 = s["outcomes"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert_eq!(outcomes, 24, "one outcome per call: {s}");
    for outcome in [
        "succeeded",
        "cancelled",
        "failed",
        "tool_error",
        "protocol_failure",
    ] {
        assert!(s["outcomes"][outcome].as_u64() > Some(0), "{outcome}: {s}");
    }
    // nothing created twice.
    assert_eq!(n(&s, "resubmits"), 0, "{s}");
    assert_eq!(n(&s, "tools_calls"), 16, "{s}");
    assert_eq!(n(&s, "job_submits"), 8, "{s}");
    // Polls: many, none under its floor, across the restart too.
    assert!(n(&s, "polls") > 24, "{s}");
    assert_eq!(n(&s, "polls_under_floor"), 0, "{s}");
    // each key asked once, one prompt open across the restart shown, not asked again.
    assert!(n(&s, "input_keys_asked") > 0, "{s}");
    assert_eq!(n(&s, "prompts_asked"), n(&s, "input_keys_asked"), "{s}");
    assert_eq!(n(&s, "prompts_asked_twice"), 0, "{s}");
    assert!(n(&s, "prompts_shown_again") > 0, "{s}");
    // Every accepted press reached the server; the running job's press was refused by the
    // button, never sent.
    assert_eq!(n(&s, "cancels_pressed"), 3, "{s}");
    assert_eq!(n(&s, "cancels_reached"), 3, "{s}");
    let refused = s["cancels_refused"].as_array().unwrap();
    assert_eq!(refused.len(), 1, "{s}");
    assert!(refused[0].as_str().unwrap().contains("too_late"), "{s}");
    // Records were written as the list asked, and removed once reported.
    assert!(n(&s, "record_writes") >= 24 * 2, "{s}");
    assert_eq!(n(&s, "records_left"), 0, "{s}");

    // The file itself: one reported outcome per call, no run record left.
    let conn = rusqlite::Connection::open(&path).unwrap();
    let count = |sql: &str| -> i64 { conn.query_row(sql, [], |r| r.get(0)).unwrap() };
    assert_eq!(count("SELECT COUNT(*) FROM call_outcome"), 24);
    assert_eq!(count("SELECT COUNT(DISTINCT call) FROM call_outcome"), 24);
    assert_eq!(count("SELECT COUNT(*) FROM watch_record"), 0);
    drop(conn);

    // The file holds a finished run: a second run on it is refused, not mixed in.
    let again = longcall(&["watch-demo", "--db", path.to_str().unwrap()]);
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8(again.stdout)
        .unwrap()
        .contains("holds another run"));
}

#[test]
fn larger_batches_and_other_crash_points_hold_the_same_invariants() {
    for (calls, crash_at) in [("12", "0"), ("60", "1500"), ("60", "6000")] {
        let path = db(&format!("run-{calls}-{crash_at}.sqlite"));
        let o = longcall(&[
            "watch-demo",
            "--db",
            path.to_str().unwrap(),
            "--calls",
            calls,
            "--crash-at",
            crash_at,
            "--json",
        ]);
        let text = String::from_utf8(o.stdout).unwrap();
        assert_eq!(
            o.status.code(),
            Some(0),
            "{calls} calls, crash at {crash_at}: {text}"
        );
        let s: Value = serde_json::from_str(&text).unwrap();
        let calls: u64 = calls.parse().unwrap();
        assert!(s["died_at_ms"].is_u64(), "{s}");
        assert_eq!(n(&s, "settled_exactly_once"), calls, "{s}");
        assert_eq!(n(&s, "resubmits"), 0, "{s}");
        assert_eq!(n(&s, "polls_under_floor"), 0, "{s}");
        assert_eq!(n(&s, "prompts_asked_twice"), 0, "{s}");
        assert_eq!(n(&s, "cancels_reached"), n(&s, "cancels_pressed"), "{s}");
    }
}

#[test]
fn the_main_command_runs_the_watch_demo_on_a_temporary_file() {
    let o = longcall(&[]);
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(out.contains("watch: 24 calls in one watch list"), "{out}");
    assert!(out.contains("settled exactly once: 24/24"), "{out}");
    assert!(out.contains("resubmits: 0"), "{out}");
    assert!(out.contains("every invariant held"), "{out}");
}
