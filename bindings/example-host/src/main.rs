//! A Rust host for [`longcall::endpoint::CallEndpoint`]: calls a tool on an MCP server (2026
//! Streamable HTTP), polls, answers inputs, cancels on Ctrl-C and prints the settled outcome as
//! one JSON line.
//!
//! ```sh
//! node pkg/examples/mcp-tasks-server.mjs            # prints LISTENING http://127.0.0.1:PORT/mcp
//! cargo run -p longcall-example-host -- --url http://127.0.0.1:PORT/mcp \
//!     --tool confirm_delete --args '{"filename":"a.txt"}' \
//!     --answer '{"action":"accept","content":{"confirm":true}}'
//! ```
//!
//! What this file decides: nothing about the call. It moves bytes (POST the endpoint's
//! transmits, hand the answers back as they arrived), keeps the clock and the timer, reads the
//! user's answer from `--answer` (or stdin), and turns Ctrl-C (or `--cancel-after-ms`, for the
//! interop run) into a cancel press. Every decision is the endpoint's.

use std::io::BufRead;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use longcall::endpoint::{CallEndpoint, Config, Event, Transmit};
use longcall::Model;
use serde_json::{json, Value};

struct Args {
    url: String,
    tool: String,
    arguments: Value,
    answer: Option<Value>,
    cancel_after_ms: Option<u64>,
}

const USAGE: &str = "usage: longcall-example-host --url URL --tool NAME [--args JSON] [--answer JSON] [--cancel-after-ms N]

Calls tool NAME on the MCP server at URL (2026 Streamable HTTP) and watches it to its end:
  --args JSON             the tool's arguments (default {})
  --answer JSON           the answer to every input request (default: read a line of JSON from stdin)
  --cancel-after-ms N     press cancel after N ms (Ctrl-C presses it too)
Prints the settled outcome as one JSON line.";

fn args() -> Result<Args, String> {
    let mut a = Args {
        url: String::new(),
        tool: String::new(),
        arguments: json!({}),
        answer: None,
        cancel_after_ms: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        if flag == "--help" || flag == "-h" {
            println!("{USAGE}");
            std::process::exit(0);
        }
        let value = it.next().ok_or_else(|| format!("{flag} needs a value"))?;
        let json = |v: &str| serde_json::from_str::<Value>(v).map_err(|e| format!("{flag}: {e}"));
        match flag.as_str() {
            "--url" => a.url = value,
            "--tool" => a.tool = value,
            "--args" => a.arguments = json(&value)?,
            "--answer" => a.answer = Some(json(&value)?),
            "--cancel-after-ms" => {
                a.cancel_after_ms = Some(value.parse().map_err(|e| format!("{flag}: {e}"))?)
            }
            _ => return Err(format!("unknown flag {flag}")),
        }
    }
    if a.url.is_empty() || a.tool.is_empty() {
        return Err(USAGE.into());
    }
    Ok(a)
}

/// POSTs one JSON-RPC request; `None` when no answer came (the endpoint's transport failure).
fn post(
    agent: &ureq::Agent,
    url: &str,
    text: &str,
    headers: &[(String, String)],
) -> Option<Vec<u8>> {
    let mut req = agent.post(url).header("content-type", "application/json");
    for (k, v) in headers {
        req = req.header(k.as_str(), v.as_str());
    }
    let mut resp = req.send(text).ok()?;
    resp.body_mut().read_to_vec().ok()
}

fn user_answer(given: &Option<Value>, key: &str, request: &Value) -> Value {
    if let Some(v) = given {
        return v.clone();
    }
    eprintln!(
        "input {key}: {request}\nanswer as JSON (e.g. {{\"action\":\"accept\",\"content\":{{}}}}):"
    );
    let mut line = String::new();
    let _ = std::io::stdin().lock().read_line(&mut line);
    serde_json::from_str(&line).unwrap_or_else(|_| json!({"action": "decline"}))
}

fn main() {
    let a = match args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let interrupted = Arc::new(AtomicBool::new(false));
    {
        let flag = interrupted.clone();
        if let Err(e) = ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst)) {
            eprintln!("no Ctrl-C handler: {e}");
        }
    }
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(60)))
        .build()
        .into();
    let start = Instant::now();
    let now = || start.elapsed().as_millis() as u64;
    let mut ep = match CallEndpoint::call_tool(
        Model::Task2026,
        &a.tool,
        a.arguments.clone(),
        None,
        Config::default(),
    ) {
        Ok(ep) => ep,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let mut cancel_sent = false;
    loop {
        let event = ep.poll_event();
        match event {
            Event::Transmit(Transmit::Rpc { id, text, headers }) => {
                match post(&agent, &a.url, &text, &headers) {
                    Some(bytes) => ep.handle_message(now(), &bytes),
                    None => ep.handle_transport_failure(now(), id),
                }
            }
            Event::Transmit(other) => eprintln!("not an MCP transmit: {other:?}"),
            Event::AskUser { key, request, call } => {
                let answer = user_answer(&a.answer, &key, &request);
                eprintln!(
                    "answering {} input {key}",
                    if call { "call" } else { "task" }
                );
                if let Err(e) = ep.answer_input(now(), &key, answer) {
                    eprintln!("answer refused: {e}");
                }
            }
            Event::Status { status } => eprintln!("status: {}", status.as_str()),
            Event::Button { state } => eprintln!("cancel button: {}", state.as_str()),
            Event::Violation { violation } => eprintln!("violation: {violation:?}"),
            Event::Settled {
                outcome,
                status,
                result,
                error,
            } => {
                let line = json!({
                    "outcome": outcome.as_str(),
                    "status": status.map(|s| s.as_str()),
                    "result": result,
                    "error": error,
                    "ms": now(),
                    "violations": ep.tracker().record().violation_count,
                });
                println!("{line}");
                return;
            }
            Event::Stopped { reason } => {
                println!("{}", json!({"stopped": format!("{reason:?}"), "ms": now()}));
                std::process::exit(1);
            }
            Event::WakeAt { at } => {
                // Sleep in short slices so Ctrl-C is a cancel press within 50 ms.
                while now() < at {
                    let due = a.cancel_after_ms.is_some_and(|ms| now() >= ms);
                    if !cancel_sent && (interrupted.load(Ordering::SeqCst) || due) {
                        cancel_sent = true;
                        match ep.cancel_pressed(now()) {
                            Ok(()) => eprintln!("cancel pressed"),
                            Err(e) => eprintln!("cancel refused: {e}"),
                        }
                        break;
                    }
                    std::thread::sleep(Duration::from_millis(at.saturating_sub(now()).min(50)));
                }
                ep.handle_timeout(now());
            }
            Event::Idle => {
                println!("{}", json!({"idle": true, "ms": now()}));
                std::process::exit(1);
            }
            other => eprintln!("{other:?}"),
        }
    }
}
