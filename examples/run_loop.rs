//! The run loop with the endpoint: bytes in, bytes out (the README shows this file).
use longcall::endpoint::{CallEndpoint, Config, Event, HttpAnswer, Transmit};
use longcall::Model;

/// An HTTP answer: its status, headers and bytes, exactly as they arrived.
type Answer = (u16, Vec<(String, String)>, Vec<u8>);

/// Your transport: POST `text` with `headers` (and `Content-Type: application/json`, `Accept:
/// application/json, text/event-stream`) to the MCP endpoint; return the answer, a 4xx or 5xx
/// included; `None` only when none came.
fn post(text: &str, headers: &[(String, String)]) -> Option<Answer> {
    let _ = (text, headers);
    None
}

/// Your HTTP client, for a job API (`CallEndpoint::submit_job`, `watch` of a job): send `method
/// path` on the API's base URL with `headers` and your own `Authorization`, and return the
/// answer, a 4xx or 5xx included; `None` only when none came. (`ureq` 3 makes a 4xx or 5xx an
/// error unless its config says `http_status_as_error(false)`: the core must see those answers.)
fn fetch(
    method: &str,
    path: &str,
    headers: &[(String, String)],
    body: Option<&str>,
) -> Option<Answer> {
    let _ = (method, path, headers, body);
    None
}

/// Hands the endpoint what came back for request `id`: the whole answer (its `Retry-After`,
/// an event stream and a proxy's error page are the core's to read), or that none came.
fn answered(ep: &mut CallEndpoint, now: u64, id: u64, answer: Option<Answer>) {
    match answer {
        Some((status, headers, body)) => {
            let answer = HttpAnswer {
                status,
                retry_after_ms: None,
                body: &body,
            };
            ep.handle_http_headers(now, id, answer, &headers)
        }
        None => ep.handle_transport_failure(now, id), // never re-sent
    }
}

/// Your clock (ms), your random source, your timer, your user.
fn now() -> u64 {
    0
}
fn random_seed() -> u64 {
    0x9e37_79b9_7f4a_7c15 // each call its own, so calls started together do not poll together
}
fn sleep_until(_at: u64) {}
fn prompt(request: &serde_json::Value) -> serde_json::Value {
    let _ = request; // show it, and return the person's answer (an `ElicitResult`)
    serde_json::json!({"action": "decline"})
}

fn main() -> Result<(), longcall::Error> {
    let args = serde_json::json!({"prompt": "a cat"});
    let config = Config::with_seed(random_seed());
    let mut ep = CallEndpoint::call_tool(Model::Task2026, "render", args, None, config)?;
    loop {
        match ep.poll_event() {
            Event::Transmit(Transmit::Rpc { id, text, headers }) => {
                answered(&mut ep, now(), id, post(&text, &headers))
            }
            // The answer to a request of the server's (a 2025 task's input): nothing comes back.
            Event::Transmit(Transmit::Reply { text, headers }) => drop(post(&text, &headers)),
            Event::Transmit(Transmit::Http {
                request_ref,
                method,
                path,
                headers,
                body,
            }) => {
                let answer = fetch(&method, &path, &headers, body.as_deref());
                answered(&mut ep, now(), request_ref, answer)
            }
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
            Event::Stopped { reason, .. } => {
                println!("stopped watching ({reason:?}); the call goes on");
                return Ok(());
            }
            Event::WakeAt { at } => {
                sleep_until(at);
                ep.handle_timeout(at);
            }
            // No timer armed: what happens next is an answer to what was sent, or the user.
            // This host waits for each answer inline, so nothing can come: it ends here.
            Event::Idle => return Ok(()),
            _ => {} // status, violations, admission: show or log them
        }
    }
}
