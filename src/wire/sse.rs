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

/// Calls `f` with each JSON-RPC message an HTTP answer to a POST carries, in order (rule E-67):
/// each event's data of an event stream; otherwise the body itself, when the status is a success
/// or the body is a JSON object (a 400 with a JSON-RPC error answers; a 502 page from a proxy
/// does not). Whether one of them answers the request is for the reader of JSON-RPC to say.
///
/// ```
/// use longcall::wire::sse;
/// let json = [("content-type".to_string(), "application/json".to_string())];
/// let mut n = 0;
/// sse::each_message(400, &json, b"{\"id\":1}", |_| n += 1);
/// sse::each_message(502, &[], b"<h1>Bad gateway</h1>", |_| n += 10);
/// assert_eq!(n, 1);
/// ```
pub fn each_message(
    status: u16,
    headers: &[(String, String)],
    body: &[u8],
    mut f: impl FnMut(&[u8]),
) {
    if is_event_stream(headers) {
        data_events(body).iter().for_each(|m| f(m));
    } else if (200..300).contains(&status) || body.trim_ascii_start().starts_with(b"{") {
        f(body);
    }
}

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
    fn a_success_body_is_read_and_an_error_page_is_not() {
        let count = |status, headers: &[(String, String)], body: &[u8]| {
            let mut n = 0;
            each_message(status, headers, body, |_| n += 1);
            n
        };
        let sse = [("content-type".to_string(), "text/event-stream".to_string())];
        assert_eq!(count(200, &sse, b"data: 1\n\ndata: 2\n\n"), 2);
        assert_eq!(
            count(200, &[], b"not json"),
            1,
            "a 2xx body is unreadable, not absent (E-2)"
        );
        assert_eq!(count(503, &[], b"  {\"id\":1}"), 1);
        assert_eq!(count(429, &[], b""), 0);
        assert_eq!(count(500, &[], b"[1]"), 0);
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
