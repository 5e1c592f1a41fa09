//! The bench's hot path as a plain program, for instruction counts under callgrind (wall time is
//! noise on a shared machine). `hot_path MODE N` runs MODE N times:
//! `endpoint` (clone a watching endpoint, hand it a 2026 `tasks/get` answer, drain), `clone`
//! (the clone alone, to subtract), `parse` (the `tasks/get` read alone).
//!
//! ```text
//! cargo build --release --example hot_path
//! valgrind --tool=callgrind target/release/examples/hot_path endpoint 10001
//! ```
//! Instructions per call: (count at N=10001 - count at N=1) / 10000.
use longcall::endpoint::{CallEndpoint, Config, Event};
use longcall::wire::{mcp2026, Answer, Limits};
use std::hint::black_box;

/// The bench's answer (`benches/core.rs` `GET_ANSWER`), with the watch's first request id.
const GET_ANSWER: &[u8] = br#"{"jsonrpc":"2.0","id":1,"result":{"taskId":"O7OCcp1ePmaBwKdFHFERdGPObKJyIc38bgNrR_XmiSc","status":"working","createdAt":"2026-11-29T15:07:54.708861+00:00","lastUpdatedAt":"2026-11-29T15:07:54.720461+00:00","ttlMs":900000,"pollIntervalMs":200,"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"fastmcp-tasks-probe","version":"4.1.4"}}}}"#;

fn main() -> Result<(), longcall::Error> {
    let mut args = std::env::args().skip(1);
    let mode = args.next().unwrap_or_else(|| "endpoint".into());
    let n: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(1);
    let handle = "O7OCcp1ePmaBwKdFHFERdGPObKJyIc38bgNrR_XmiSc";
    let mut ep = CallEndpoint::watch(longcall::Model::Task2026, handle, Config::default())?;
    while !matches!(ep.poll_event(), Event::WakeAt { .. } | Event::Idle) {}
    let mut sum = 0u64;
    for _ in 0..n {
        match mode.as_str() {
            "clone" => drop(black_box(ep.clone())),
            "parse" => {
                if let Ok((_, Answer::Result(p))) =
                    mcp2026::parse_get_response(black_box(GET_ANSWER), &Limits::DEFAULT)
                {
                    sum += p.value.task_id.len() as u64;
                }
            }
            _ => {
                let mut e = ep.clone();
                e.handle_message(1_000, black_box(GET_ANSWER));
                sum += loop {
                    match e.poll_event() {
                        Event::WakeAt { at } => break at,
                        Event::Idle => break 0,
                        _ => {}
                    }
                };
            }
        }
    }
    println!("{mode} x{n}: {sum}");
    Ok(())
}
