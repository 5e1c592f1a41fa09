//! Server-sent events, as a Streamable HTTP server may answer a POST (`text/event-stream`):
//! each event's `data` is one JSON-RPC message (rule E-67).
//!
//! Only what MCP uses is read: `data:` lines (one space after the colon dropped, several lines
//! joined by `\n`), an event ending at a blank line or at the end of the body. `event:`, `id:`,
//! `retry:` and comment lines carry nothing the endpoint needs.
//!
//! A whole body is read by [`each_message`]; a stream that stays open (a 2025 `tasks/result`
//! waiting while the person answers an input request) by an [`EventReader`] fed as bytes
//! arrive.
//!
//! ```
//! use longcall::wire::sse;
//! let headers = [("Content-Type".to_string(), "text/event-stream; charset=utf-8".to_string())];
//! let body = b"event: message\ndata: {\"a\":1}\n\n: keep-alive\n\ndata: {\"b\":\ndata: 2}\n";
//! let mut events = Vec::new();
//! sse::each_message(200, &headers, body, |data| events.push(data.to_vec()));
//! assert_eq!(events, [&b"{\"a\":1}"[..], &b"{\"b\":\n2}"[..]]);
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
        let mut reader = EventReader::default();
        reader.push(body, &mut f);
        reader.finish(f);
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

/// An event stream read as its bytes arrive, in pieces of any size: each event's data is
/// handed over as soon as the blank line that ends it has come.
///
/// ```
/// use longcall::wire::sse::EventReader;
/// let mut reader = EventReader::default();
/// let mut events = Vec::new();
/// reader.push(b"data: {\"id\":", |d| events.push(d.to_vec()));
/// assert!(events.is_empty(), "the event has not ended");
/// reader.push(b"1}\r\n\r\ndata: 2", |d| events.push(d.to_vec()));
/// assert_eq!(events, [b"{\"id\":1}".to_vec()]);
/// reader.finish(|d| events.push(d.to_vec())); // the body ended: so did its last event
/// assert_eq!(events[1], b"2");
/// ```
#[derive(Clone, Debug, Default)]
pub struct EventReader {
    /// The part of a line read so far.
    line: Vec<u8>,
    /// The data lines of the event read so far, joined by `\n`.
    data: Option<Vec<u8>>,
}

impl EventReader {
    /// Reads the next `bytes` of the stream, calling `f` with the data of each event they end.
    pub fn push(&mut self, bytes: &[u8], mut f: impl FnMut(&[u8])) {
        // Every piece but the last ended with a newline; the last is the start of a line.
        let mut pieces = bytes.split(|&b| b == b'\n');
        let mut piece = pieces.next().unwrap_or_default();
        for next in pieces {
            if self.line.is_empty() {
                self.line_ended(piece, &mut f);
            } else {
                let mut line = core::mem::take(&mut self.line);
                line.extend_from_slice(piece);
                self.line_ended(&line, &mut f);
                line.clear();
                self.line = line;
            }
            piece = next;
        }
        self.line.extend_from_slice(piece);
    }

    /// The stream ended: an event it left open is complete too.
    pub fn finish(&mut self, mut f: impl FnMut(&[u8])) {
        let line = core::mem::take(&mut self.line);
        if !line.is_empty() {
            self.line_ended(&line, &mut f);
        }
        if let Some(data) = self.data.take() {
            f(&data);
        }
    }

    fn line_ended(&mut self, line: &[u8], f: &mut impl FnMut(&[u8])) {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.is_empty() {
            if let Some(data) = self.data.take() {
                f(&data);
            }
        } else if let Some(d) = line.strip_prefix(b"data:") {
            let d = d.strip_prefix(b" ").unwrap_or(d);
            match &mut self.data {
                Some(joined) => {
                    joined.push(b'\n');
                    joined.extend_from_slice(d);
                }
                None => self.data = Some(d.to_vec()),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;

    const SSE: &str = "text/event-stream";

    fn events(body: &[u8]) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        each_message(200, &[("content-type".into(), SSE.into())], body, |d| {
            out.push(d.to_vec());
        });
        out
    }

    #[test]
    fn crlf_lines_and_an_unterminated_last_event_are_read() {
        assert_eq!(
            events(b"data: 1\r\n\r\ndata:2"),
            [b"1".to_vec(), b"2".to_vec()]
        );
    }

    #[test]
    fn events_without_data_and_other_fields_give_nothing() {
        assert!(events(b"event: ping\nid: 3\nretry: 10\n\n: hi\n\n").is_empty());
        assert!(events(b"").is_empty());
    }

    #[test]
    fn a_stream_in_pieces_of_any_size_reads_as_the_whole_body() {
        let body: &[u8] =
            b"event: message\r\ndata: {\"a\":\r\ndata: 1}\r\n\r\n: ping\n\ndata: 2\n\ndata: 3";
        let whole = events(body);
        assert_eq!(whole.len(), 3);
        for size in 1..body.len() {
            let mut reader = EventReader::default();
            let mut got = Vec::new();
            for piece in body.chunks(size) {
                reader.push(piece, |d| got.push(d.to_vec()));
            }
            reader.finish(|d| got.push(d.to_vec()));
            assert_eq!(got, whole, "pieces of {size} bytes");
        }
    }

    #[test]
    fn a_success_body_is_read_and_an_error_page_is_not() {
        let count = |status, headers: &[(String, String)], body: &[u8]| {
            let mut n = 0;
            each_message(status, headers, body, |_| n += 1);
            n
        };
        let sse = [("content-type".to_string(), SSE.to_string())];
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
