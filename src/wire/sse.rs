//! Server-sent events, as a Streamable HTTP server may answer a POST (`text/event-stream`):
//! each event's `data` is one JSON-RPC message (rule E-67).
//!
//! Only what MCP uses is read: `data:` lines (one space after the colon dropped, several lines
//! joined by `\n`), an event ending at a blank line or at the end of the body. `event:`, `id:`,
//! `retry:` and comment lines carry nothing the endpoint needs.
//!
//! ```
//! use longcall::wire::sse;
//! let body = b"event: message\ndata: {\"a\":1}\n\n: keep-alive\n\ndata: {\"b\":\ndata: 2}\n";
//! assert_eq!(sse::data_events(body), [&b"{\"a\":1}"[..], &b"{\"b\":\n2}"[..]]);
//! let headers = [("Content-Type".to_string(), "text/event-stream; charset=utf-8".to_string())];
//! assert!(sse::is_event_stream(&headers));
//! ```

use alloc::string::String;
use alloc::vec::Vec;

/// True when `headers` say the body is an event stream.
#[must_use]
pub fn is_event_stream(headers: &[(String, String)]) -> bool {
    headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("content-type"))
        .is_some_and(|(_, v)| {
            v.as_bytes()
                .get(..17)
                .is_some_and(|t| t.eq_ignore_ascii_case(b"text/event-stream"))
        })
}

/// The `data` of each event of `body`, in order; events without data are skipped.
#[must_use]
pub fn data_events(body: &[u8]) -> Vec<Vec<u8>> {
    let mut events = Vec::new();
    let mut data: Option<Vec<u8>> = None;
    for line in body.split(|&b| b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.is_empty() {
            events.extend(data.take());
        } else if let Some(d) = line.strip_prefix(b"data:") {
            let d = d.strip_prefix(b" ").unwrap_or(d);
            match &mut data {
                Some(joined) => {
                    joined.push(b'\n');
                    joined.extend_from_slice(d);
                }
                None => data = Some(d.to_vec()),
            }
        }
    }
    events.extend(data);
    events
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;

    #[test]
    fn crlf_lines_and_an_unterminated_last_event_are_read() {
        assert_eq!(
            data_events(b"data: 1\r\n\r\ndata:2"),
            [b"1".to_vec(), b"2".to_vec()]
        );
    }

    #[test]
    fn events_without_data_and_other_fields_give_nothing() {
        assert!(data_events(b"event: ping\nid: 3\nretry: 10\n\n: hi\n\n").is_empty());
        assert!(data_events(b"").is_empty());
    }

    #[test]
    fn only_an_event_stream_content_type_is_one() {
        let h = |v: &str| [("content-type".to_string(), v.to_string())];
        assert!(is_event_stream(&h("TEXT/EVENT-STREAM")));
        assert!(!is_event_stream(&h("application/json")));
        assert!(!is_event_stream(&h("text/event")));
        assert!(!is_event_stream(&[]));
    }
}
