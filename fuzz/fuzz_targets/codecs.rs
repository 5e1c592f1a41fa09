//! Raw bytes into every wire parser (guarded JSON reader, JSON-RPC, MCP 2026 / 2025, Sume,
//! detection, time fields). Invariants: no panic, errors carry a documented code, no unbounded
//! allocation (run with -rss_limit_mb), what parses re-serializes and parses again the same, and
//! an event stream fed in pieces reads as the whole body.
#![no_main]
use libfuzzer_sys::fuzz_target;
use longcall::wire::{detect, jsonrpc, mcp2025, mcp2026, sume, sume_open, Limits, Message};
use longcall::Error;

fn code<T>(r: Result<T, Error>) -> Option<T> {
    match r {
        Ok(v) => Some(v),
        Err(e) => {
            assert!(
                longcall::error::ERROR_CODES.contains(&e.code()),
                "undocumented code {}",
                e.code()
            );
            None
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let (selector, bytes) = data.split_first().map_or((0, data), |(s, r)| (*s, r));
    // Tight limits sometimes, so the limit paths are reached with small inputs.
    let limits = if selector & 1 == 0 {
        Limits::DEFAULT
    } else {
        Limits {
            max_bytes: 512,
            max_depth: 4,
            max_string_bytes: 32,
        }
    };
    let _ = code(longcall::wire::limits::check(bytes, &limits));
    // An event stream read in two pieces, split anywhere, gives the events the whole body gives.
    let sse = [("content-type".to_string(), "text/event-stream".to_string())];
    let mut whole = Vec::new();
    longcall::wire::sse::each_message(200, &sse, bytes, |d| whole.push(d.to_vec()));
    let (head, tail) = bytes.split_at(usize::from(selector) % (bytes.len() + 1));
    let mut reader = longcall::wire::sse::EventReader::default();
    let mut pieces = Vec::new();
    reader.push(head, |d| pieces.push(d.to_vec()));
    reader.push(tail, |d| pieces.push(d.to_vec()));
    reader.finish(|d| pieces.push(d.to_vec()));
    assert_eq!(pieces, whole);
    let _ = code(mcp2026::parse_get_response(bytes, &limits));
    if let Some(msg) = code(Message::parse_with(bytes, &limits)) {
        // Round trip: what we write, we read back as the same message.
        let again = Message::from_value(msg.to_value()).expect("a written message reads back");
        assert_eq!(again, msg);
        let _ = detect::from_message(&msg);
        let _ = detect::detect(None, None, Some(&msg));
        let _ = code(mcp2025::read_task_result(&msg));
        let _ = code(mcp2025::cancel_answer(&msg));
        let _ = code(mcp2026::cancel_answer(&msg));
    }
    if let Some(v) = code(longcall::wire::read_json_with(bytes, &limits)) {
        let _ = code(mcp2025::read_create(&v));
        let _ = code(mcp2025::read_get(&v));
        let _ = code(mcp2025::read_cancel(&v));
        let _ = code(mcp2025::read_notification(&v));
        let _ = code(mcp2025::read_list(&v));
        let _ = code(mcp2026::read_create(&v));
        let _ = code(mcp2026::read_get(&v));
        let _ = code(mcp2026::read_notification(&v));
        let _ = code(mcp2026::read_ack(&v));
        let _ = code(mcp2026::read_tools_call(&v));
        let _ = code(sume::read_job(&v));
        let _ = code(sume::read_create(&v));
        let _ = code(sume::read_wait(&v));
        let status = u16::from(selector) * 3;
        let _ = code(sume::read_error(status, &v));
        let _ = code(sume::cancel_answer(status, Some(&v)));
        let _ = code(sume_open::read_submit(&v));
        let _ = code(sume_open::read_status("job_1", &v));
        let _ = code(sume_open::read_result("job_1", &v));
        let _ = code(sume_open::read_catalog(&v));
        let _ = code(sume_open::cancel_answer(status, Some(&v)));
        let headers = [("retry-after".to_string(), "7".to_string())];
        let e = sume_open::read_error(status, &headers, Some(&v), 0);
        let _ = (sume_open::advice(&e), sume_open::failure(&e));
        let _ = code(jsonrpc::rpc_error_from_value(v.clone()));
        let _ = code(longcall::wire::limits::ms_field(&v, "field"));
    }
    if let Ok(text) = std::str::from_utf8(bytes) {
        let _ = detect::from_protocol_version(text);
        let _ = detect::detect(None, Some(text), None);
        let _ = code(longcall::time::parse_rfc3339_ms(text));
        let _ = code(longcall::time::parse_http_date_ms(text));
        let _ = code(longcall::time::parse_retry_after_ms(
            text,
            u64::from(selector) << 40,
        ));
        let _ = code(sume::retry_after_ms(text, 0));
    }
});
