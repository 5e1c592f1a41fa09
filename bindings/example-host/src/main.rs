//! A Rust host for [`longcall::endpoint::CallEndpoint`]: calls a tool on an MCP server over
//! Streamable HTTP (the 2026 tasks extension, or the 2025 tasks with `--revision 2025`), polls,
//! answers inputs, cancels on Ctrl-C and prints the settled outcome as one JSON line.
//!
//! ```sh
//! node pkg/examples/mcp-tasks-server.mjs            # prints LISTENING http://127.0.0.1:PORT/mcp
//! cargo run -p longcall-example-host -- --url http://127.0.0.1:PORT/mcp \
//!     --tool confirm_delete --args '{"filename":"a.txt"}' \
//!     --answer '{"action":"accept","content":{"confirm":true}}'
//! ```
//!
//! What this file decides: nothing about the call. It moves bytes (POST the endpoint's
//! transmits, hand the answers back whole as they arrived, status and headers included, and
//! each event of a stream as it comes), keeps
//! the clock and the timer, reads the user's answer from `--answer` (or stdin), and turns Ctrl-C
//! (or `--cancel-after-ms`, for the interop run) into a cancel press. Every decision is the
//! endpoint's.

use std::io::{BufRead, Read};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use longcall::endpoint::{CallEndpoint, Config, Event, HttpAnswer, Transmit};
use longcall::Json;
use longcall::Model;
use serde_json::{json, Value};

struct Args {
    url: String,
    tool: String,
    arguments: Value,
    answer: Option<Value>,
    cancel_after_ms: Option<u64>,
    model: Model,
}

const USAGE: &str = "usage: longcall-example-host --url URL --tool NAME [--args JSON] [--answer JSON] [--cancel-after-ms N] [--revision 2026|2025]

Calls tool NAME on the MCP server at URL (Streamable HTTP) and watches it to its end:
  --revision 2026|2025    the tasks revision to speak (default 2026)
  --args JSON             the tool's arguments (default {})
  --answer JSON           the answer to every input request (default: read a line of JSON from stdin)
  --cancel-after-ms N     press cancel after N ms (Ctrl-C presses it too)
Prints the settled outcome as one JSON line.";

/// A jitter seed from the operating system's randomness (std's hasher keys), so two hosts
/// started together do not poll together.
fn random_seed() -> u64 {
    use std::hash::BuildHasher;
    std::collections::hash_map::RandomState::new().hash_one(0u8)
}

fn args() -> Result<Args, String> {
    let mut a = Args {
        url: String::new(),
        tool: String::new(),
        arguments: json!({}),
        answer: None,
        cancel_after_ms: None,
        model: Model::Task2026,
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
            "--revision" => {
                a.model = match value.as_str() {
                    "2026" => Model::Task2026,
                    "2025" => Model::Task2025,
                    _ => return Err(format!("{flag}: 2026 or 2025, not {value}")),
                }
            }
            _ => return Err(format!("unknown flag {flag}")),
        }
    }
    if a.url.is_empty() || a.tool.is_empty() {
        return Err(USAGE.into());
    }
    Ok(a)
}

/// What came back for a POST.
enum Answer {
    /// Nothing: the endpoint's transport failure.
    None,
    /// A whole answer (a JSON body, a 4xx or 5xx page): status, headers, bytes. The endpoint
    /// reads it, `Retry-After` included.
    Whole(u16, Vec<(String, String)>, Vec<u8>),
    /// An event stream, each event already handed over as it arrived.
    Streamed,
}

/// POSTs one JSON-RPC message. A `text/event-stream` answer hands each event's data to `each`
/// as it arrives (a 2025 `tasks/result` stays open while the task asks for input, so its
/// events cannot wait for the end); any other answer comes back whole.
fn post(
    agent: &ureq::Agent,
    url: &str,
    text: &str,
    headers: &[(String, String)],
    each: &mut dyn FnMut(&[u8]),
) -> Answer {
    let mut req = agent
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    for (k, v) in headers {
        req = req.header(k.as_str(), v.as_str());
    }
    let Ok(mut resp) = req.send(text) else {
        return Answer::None;
    };
    let got: Vec<(String, String)> = resp
        .headers()
        .iter()
        .filter_map(|(k, v)| Some((k.to_string(), v.to_str().ok()?.to_string())))
        .collect();
    if !longcall::wire::sse::is_event_stream(&got) {
        return match resp.body_mut().read_to_vec() {
            Ok(bytes) => Answer::Whole(resp.status().as_u16(), got, bytes),
            Err(_) => Answer::None,
        };
    }
    // Server-sent events, each handed over as soon as it has ended (the core's reader).
    let mut events = longcall::wire::sse::EventReader::default();
    let mut body = resp.body_mut().as_reader();
    let mut buf = [0u8; 8192];
    loop {
        match body.read(&mut buf) {
            // The body ended: so did an event it left open.
            Ok(0) => break events.finish(each),
            Ok(n) => events.push(&buf[..n], &mut *each),
            // Broken off: half an event is no message.
            Err(_) => break,
        }
    }
    Answer::Streamed
}

fn user_answer(given: &Option<Value>, key: &str, request: &Json) -> Value {
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

/// The host's own state: its HTTP client, the clock, the user's answers and cancel press.
struct Host {
    agent: ureq::Agent,
    args: Args,
    start: Instant,
    interrupted: Arc<AtomicBool>,
    cancel_sent: bool,
}

impl Host {
    fn now(&self) -> u64 {
        self.start.elapsed().as_millis() as u64
    }

    /// Does what `event` asks. Every message of an answer goes back to the endpoint as it
    /// arrives, and what that releases is done before the next (an input asked on an open
    /// 2025 `tasks/result` stream is answered while the stream waits for it).
    fn on_event(&mut self, ep: &mut CallEndpoint, event: Event) {
        match event {
            Event::Transmit(Transmit::Rpc { id, text, headers }) => {
                let (agent, url) = (self.agent.clone(), self.args.url.clone());
                let answer = post(&agent, &url, &text, &headers, &mut |bytes| {
                    ep.handle_message(self.now(), bytes);
                    loop {
                        match ep.poll_event() {
                            Event::WakeAt { .. } | Event::Idle => break,
                            e => self.on_event(ep, e),
                        }
                    }
                });
                match answer {
                    Answer::Whole(status, got, body) => {
                        let answer = HttpAnswer {
                            status,
                            retry_after_ms: None,
                            body: &body,
                        };
                        ep.handle_http_headers(self.now(), id, answer, &got);
                    }
                    // A no-op when an event answered `id` (rule E-1).
                    Answer::Streamed | Answer::None => ep.handle_transport_failure(self.now(), id),
                }
            }
            // The answer to the server's own request: the server answers 202, nothing to read.
            Event::Transmit(Transmit::Reply { text, headers }) => {
                let (agent, url) = (self.agent.clone(), self.args.url.clone());
                post(&agent, &url, &text, &headers, &mut |_| {});
            }
            Event::Transmit(other) => eprintln!("not an MCP transmit: {other:?}"),
            Event::AskUser { key, request, call } => {
                let answer = user_answer(&self.args.answer, &key, &request);
                eprintln!(
                    "answering {} input {key}",
                    if call { "call" } else { "task" }
                );
                if let Err(e) = ep.answer_input(self.now(), &key, answer) {
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
                    "ms": self.now(),
                    "violations": ep.tracker().record().violation_count,
                });
                println!("{line}");
                std::process::exit(0);
            }
            Event::Stopped { reason, .. } => {
                println!(
                    "{}",
                    json!({"stopped": format!("{reason:?}"), "ms": self.now()})
                );
                std::process::exit(1);
            }
            Event::WakeAt { at } => {
                // Sleep in short slices so Ctrl-C is a cancel press within 50 ms.
                while self.now() < at {
                    let due = self.args.cancel_after_ms.is_some_and(|ms| self.now() >= ms);
                    if !self.cancel_sent && (self.interrupted.load(Ordering::SeqCst) || due) {
                        self.cancel_sent = true;
                        match ep.cancel_pressed(self.now()) {
                            Ok(()) => eprintln!("cancel pressed"),
                            Err(e) => eprintln!("cancel refused: {e}"),
                        }
                        break;
                    }
                    let left = at.saturating_sub(self.now()).min(50);
                    std::thread::sleep(Duration::from_millis(left));
                }
                ep.handle_timeout(self.now());
            }
            Event::Idle => {
                println!("{}", json!({"idle": true, "ms": self.now()}));
                std::process::exit(1);
            }
            other => eprintln!("{other:?}"),
        }
    }
}

fn main() {
    let args = match args() {
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
    let mut ep = match CallEndpoint::call_tool(
        args.model,
        &args.tool,
        args.arguments.clone(),
        None,
        Config::with_seed(random_seed()),
    ) {
        Ok(ep) => ep,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let mut host = Host {
        agent,
        args,
        start: Instant::now(),
        interrupted,
        cancel_sent: false,
    };
    loop {
        let event = ep.poll_event();
        host.on_event(&mut ep, event);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn each_draw_is_its_own_seed() {
        assert_ne!(super::random_seed(), super::random_seed());
    }
}
