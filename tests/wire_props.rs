//! Arbitrary bytes never panic any parser.
#![cfg(not(target_arch = "wasm32"))]

use longcall::wire::{mcp2025, mcp2026, read_json, sume, sume_open, Limits, Message};
use proptest::prelude::*;

fn all_parsers(bytes: &[u8]) {
    let _ = read_json(bytes);
    let _ = mcp2026::parse_get_response(bytes, &Limits::DEFAULT);
    if let Ok(m) = Message::parse(bytes) {
        let _ = m.to_value();
        let _ = mcp2026::cancel_answer(&m);
        let _ = mcp2025::cancel_answer(&m);
        let _ = mcp2025::read_task_result(&m);
        let _ = longcall::wire::detect::from_message(&m);
    }
    if let Ok(v) = read_json(bytes) {
        let _ = mcp2026::read_get(&v);
        let _ = mcp2026::read_create(&v);
        let _ = mcp2026::read_notification(&v);
        let _ = mcp2026::read_ack(&v);
        let _ = mcp2026::read_tools_call(&v);
        let _ = mcp2025::read_create(&v);
        let _ = mcp2025::read_get(&v);
        let _ = mcp2025::read_list(&v);
        let _ = sume::read_job(&v);
        let _ = sume::read_create(&v);
        let _ = sume::read_wait(&v);
        let _ = sume::read_error(409, &v);
        let _ = sume::cancel_answer(200, Some(&v));
        let _ = sume::cancel_answer(409, Some(&v));
        let _ = sume_open::read_submit(&v);
        let _ = sume_open::read_status("job_1", &v);
        let _ = sume_open::read_result("job_1", &v);
        let _ = sume_open::read_catalog(&v);
        let _ = sume_open::cancel_answer(200, Some(&v));
        let _ = sume_open::cancel_answer(409, Some(&v));
        let e = sume_open::read_error(503, &[], Some(&v), 0);
        let _ = (sume_open::advice(&e), sume_open::failure(&e));
    }
    if let Ok(s) = std::str::from_utf8(bytes) {
        let _ = longcall::time::parse_rfc3339_ms(s);
        let _ = longcall::time::parse_http_date_ms(s);
        let _ = longcall::time::parse_retry_after_ms(s, u64::MAX);
    }
}

proptest! {
    /// Rules S-1.
    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        all_parsers(&bytes);
    }

    #[test]
    fn json_like_text_never_panics(s in r#"[\[\]{}",:0-9a-zA-Z\-\.eE\\ ]{0,200}"#) {
        all_parsers(s.as_bytes());
    }

    #[test]
    fn mutated_task_answers_never_panic(pos in 0usize..400, byte in any::<u8>(), cut in 0usize..400) {
        let base = br#"{"jsonrpc":"2.0","id":3,"result":{"taskId":"t1","status":"input_required","createdAt":"2026-11-29T15:07:54.708861+00:00","lastUpdatedAt":"2026-11-29T15:07:54Z","ttlMs":900000,"pollIntervalMs":200,"resultType":"complete","inputRequests":{"k":{"method":"elicitation/create","params":{}}}}}"#;
        let mut b = base.to_vec();
        if let Some(x) = b.get_mut(pos) { *x = byte; }
        b.truncate(cut.max(1));
        all_parsers(&b);
        all_parsers(base);
    }

    /// Rules M-14.
    #[test]
    fn timestamps_round_trip(ms in 0u64..253_402_300_799_999) {
        let s = longcall::time::format_rfc3339_ms(ms);
        prop_assert_eq!(longcall::time::parse_rfc3339_ms(&s).unwrap(), ms);
    }
}
