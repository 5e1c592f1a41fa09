//! The run loop with the endpoint: bytes in, bytes out (the README shows this file).
use longcall::endpoint::{CallEndpoint, Config, Event, Transmit};
use longcall::Model;

/// Your transport: POST `text` with `headers` to the MCP endpoint, return the answer's bytes.
fn post(text: &str, headers: &[(String, String)]) -> Option<Vec<u8>> {
    let _ = (text, headers);
    None
}

/// Your clock (ms), your timer, your user.
fn now() -> u64 {
    0
}
fn sleep_until(_at: u64) {}
fn prompt(request: &serde_json::Value) -> serde_json::Value {
    let _ = request; // show it, and return the person's answer (an `ElicitResult`)
    serde_json::json!({"action": "decline"})
}

fn main() -> Result<(), longcall::Error> {
    let args = serde_json::json!({"prompt": "a cat"});
    let mut ep = CallEndpoint::call_tool(Model::Task2026, "render", args, None, Config::default())?;
    loop {
        match ep.poll_event() {
            Event::Transmit(Transmit::Rpc { id, text, headers }) => match post(&text, &headers) {
                Some(bytes) => ep.handle_answer(now(), id, &bytes), // exactly as it arrived
                None => ep.handle_transport_failure(now(), id),     // never re-sent
            },
            Event::AskUser { key, request, .. } => {
                ep.answer_input(now(), &key, prompt(&request))?
            }
            Event::Button { state } => println!("cancel button: {}", state.as_str()),
            Event::Settled {
                outcome,
                result,
                error,
                ..
            } => {
                println!("{}: {result:?} {error:?}", outcome.as_str());
                return Ok(());
            }
            Event::Stopped { reason } => {
                println!("stopped watching ({reason:?}); the call goes on");
                return Ok(());
            }
            Event::WakeAt { at } => {
                sleep_until(at);
                ep.handle_timeout(at);
            }
            // Nothing armed and nothing in flight (an async host waits for its answers instead).
            Event::Idle => return Ok(()),
            _ => {} // status, violations: show or log them (a job call sends `Transmit::Http`)
        }
    }
}
