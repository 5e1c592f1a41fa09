//! The borrowed, field-by-field read of the commonest answer: a JSON-RPC response whose `result`
//! is a task object (a 2026 `tasks/get` answer).
//!
//! One pass over the bytes enforces the [`Limits`] (S-3, E-3: size first, then depth and each
//! string's length as it goes), validates the JSON it skips, and keeps only borrowed spans; the
//! payload members (`inputRequests`, `result`, `error`) are built by serde_json from their spans
//! after the whole message has passed, so nothing is built from a message over the limits.
//!
//! The reader is a shortcut, never a second opinion: on anything it does not read exactly as the
//! serde path does (an escaped key, a duplicate member, a number of the wrong shape, an error
//! answer, any syntax or limit problem) it answers `None` and the caller takes the serde path,
//! whose result and error text stay the reference. It may refuse more than serde_json does; it
//! never accepts what serde_json refuses, and what it accepts it reads to the same [`RawTask`].

use alloc::borrow::Cow;
use alloc::string::String;

use serde_json::{Map, Value};

use super::jsonrpc::Id;
use super::limits::Limits;
use super::task::{RawTask, Str};

/// serde_json gives up below this depth; the scan refuses earlier so it never accepts what serde
/// would refuse.
const SERDE_DEPTH: usize = 127;

struct Scan<'a> {
    /// The message, validated UTF-8 once, so string tokens are sliced from it without another
    /// validation.
    text: &'a str,
    b: &'a [u8],
    i: usize,
    depth: usize,
    max_depth: usize,
    max_string: usize,
}

const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;

/// The offset of the first byte that ends a run of plain string contents (`"`, `\\` or a control
/// byte), eight bytes at a time: in each of the three masks the lowest set bit is exact (borrows
/// only create false hits above a true one), so the lowest bit of their union is the first stop.
fn stop(rest: &[u8]) -> Option<usize> {
    let mut chunks = rest.chunks_exact(8);
    let mut base = 0;
    for chunk in chunks.by_ref() {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let w = u64::from_le_bytes(word);
        let zero = |v: u64| v.wrapping_sub(LO) & !v & HI;
        let hits = zero(w ^ (LO * u64::from(b'"')))
            | zero(w ^ (LO * u64::from(b'\\')))
            | (w.wrapping_sub(LO * 0x20) & !w & HI);
        if hits != 0 {
            return Some(base + (hits.trailing_zeros() / 8) as usize);
        }
        base += 8;
    }
    let tail = chunks.remainder();
    tail.iter()
        .position(|&c| c == b'"' || c == b'\\' || c < 0x20)
        .map(|off| base + off)
}

/// A string token: its contents as written (between the quotes) and whether it has escapes.
#[derive(Clone, Copy)]
struct Token<'a> {
    raw: &'a str,
    escaped: bool,
}

impl<'a> Scan<'a> {
    fn ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\t' | b'\r') = self.b.get(self.i) {
            self.i += 1;
        }
    }

    /// The next significant byte (whitespace skipped), not consumed.
    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.b.get(self.i).copied()
    }

    fn eat(&mut self, c: u8) -> Option<()> {
        (self.peek()? == c).then(|| self.i += 1)
    }

    fn open(&mut self, c: u8) -> Option<()> {
        self.eat(c)?;
        self.depth += 1;
        (self.depth <= self.max_depth).then_some(())
    }

    /// A string at the cursor: raw control bytes refused, escapes checked for shape.
    fn string(&mut self) -> Option<Token<'a>> {
        self.eat(b'"')?;
        let start = self.i;
        let mut escaped = false;
        loop {
            self.i += stop(self.b.get(self.i..)?)?;
            match self.b.get(self.i)? {
                b'"' => break,
                b'\\' => {
                    escaped = true;
                    match self.b.get(self.i + 1)? {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => self.i += 2,
                        b'u' => {
                            let hex = self.b.get(self.i + 2..self.i + 6)?;
                            if !hex.iter().all(u8::is_ascii_hexdigit) {
                                return None;
                            }
                            self.i += 6;
                        }
                        _ => return None,
                    }
                }
                _ => return None,
            }
        }
        let raw = self.text.get(start..self.i)?;
        if raw.len() > self.max_string {
            return None;
        }
        self.i += 1;
        Some(Token { raw, escaped })
    }

    /// A key and its colon; keys with escapes are left to serde.
    fn key(&mut self) -> Option<&'a str> {
        let t = self.string()?;
        if t.escaped {
            return None;
        }
        self.eat(b':')?;
        Some(t.raw)
    }

    /// After a member: `Some(true)` for a comma (another member follows), `Some(false)` at the
    /// closing brace (consumed).
    fn next_member(&mut self) -> Option<bool> {
        match self.peek()? {
            b',' => {
                self.i += 1;
                Some(true)
            }
            b'}' => {
                self.i += 1;
                self.depth -= 1;
                Some(false)
            }
            _ => None,
        }
    }

    /// A number, validated by the JSON grammar; its text.
    fn number(&mut self) -> Option<&'a [u8]> {
        self.ws();
        let start = self.i;
        if self.b.get(self.i) == Some(&b'-') {
            self.i += 1;
        }
        match self.b.get(self.i)? {
            b'0' => self.i += 1,
            b'1'..=b'9' => self.digits(),
            _ => return None,
        }
        if self.b.get(self.i) == Some(&b'.') {
            self.i += 1;
            self.digits1()?;
        }
        if let Some(b'e' | b'E') = self.b.get(self.i) {
            self.i += 1;
            if let Some(b'+' | b'-') = self.b.get(self.i) {
                self.i += 1;
            }
            self.digits1()?;
        }
        self.b.get(start..self.i)
    }

    fn digits(&mut self) {
        while self.b.get(self.i).is_some_and(u8::is_ascii_digit) {
            self.i += 1;
        }
    }

    fn digits1(&mut self) -> Option<()> {
        let start = self.i;
        self.digits();
        (self.i > start).then_some(())
    }

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        let end = self.i + word.len();
        (self.b.get(self.i..end)? == word).then(|| self.i = end)
    }

    /// `null` at the cursor (consumed), or nothing.
    fn null(&mut self) -> bool {
        self.peek() == Some(b'n') && self.literal(b"null").is_some()
    }

    /// A non-negative integer that fits `u64` (the only number shape the fast path reads).
    fn u64(&mut self) -> Option<u64> {
        let text = self.number()?;
        if text.len() > 1 && text.first() == Some(&b'0') {
            return None;
        }
        let mut n = 0u64;
        for &d in text {
            if !d.is_ascii_digit() {
                return None;
            }
            n = n.checked_mul(10)?.checked_add(u64::from(d - b'0'))?;
        }
        Some(n)
    }

    /// Skips one value, validating it; returns its span.
    fn skip(&mut self) -> Option<&'a [u8]> {
        self.ws();
        let start = self.i;
        match self.b.get(self.i)? {
            b'"' => {
                self.string()?;
            }
            b'{' => {
                self.open(b'{')?;
                if self.peek()? == b'}' {
                    self.i += 1;
                    self.depth -= 1;
                } else {
                    loop {
                        self.string()?;
                        self.eat(b':')?;
                        self.skip()?;
                        if !self.next_member()? {
                            break;
                        }
                    }
                }
            }
            b'[' => {
                self.open(b'[')?;
                if self.peek()? == b']' {
                    self.i += 1;
                } else {
                    loop {
                        self.skip()?;
                        match self.peek()? {
                            b',' => self.i += 1,
                            b']' => {
                                self.i += 1;
                                break;
                            }
                            _ => return None,
                        }
                    }
                }
                self.depth -= 1;
            }
            b't' => self.literal(b"true")?,
            b'f' => self.literal(b"false")?,
            b'n' => self.literal(b"null")?,
            _ => {
                self.number()?;
            }
        }
        self.b.get(start..self.i)
    }

    /// A string member read as `Str` (borrowed; unescaped by serde_json when it has escapes).
    fn str_member(&mut self) -> Option<Str<'a>> {
        let t = self.string()?;
        if !t.escaped {
            return Some(Str(Cow::Borrowed(t.raw)));
        }
        // The token with its quotes (the cursor is just past the closing one), unescaped by serde.
        let quoted = self.b.get(self.i - t.raw.len() - 2..self.i)?;
        serde_json::from_slice::<String>(quoted)
            .ok()
            .map(|s| Str(Cow::Owned(s)))
    }
}

/// Spans of the payload members, built only after the whole message passed the scan.
#[derive(Default)]
struct Payload<'a> {
    input_requests: Option<&'a [u8]>,
    result: Option<&'a [u8]>,
    error: Option<&'a [u8]>,
}

/// Sets `slot` once; a second member of the same name is left to serde (it refuses duplicates).
fn once<T>(slot: &mut Option<T>, value: T) -> Option<()> {
    if slot.is_some() {
        return None;
    }
    *slot = Some(value);
    Some(())
}

fn task<'a>(s: &mut Scan<'a>, raw: &mut RawTask<'a>, p: &mut Payload<'a>) -> Option<()> {
    s.open(b'{')?;
    if s.peek()? == b'}' {
        s.i += 1;
        s.depth -= 1;
        return Some(());
    }
    loop {
        let key = s.key()?;
        match key {
            "taskId" => once(&mut raw.task_id, s.str_member()?)?,
            "status" => once(&mut raw.status, s.str_member()?)?,
            "statusMessage" => once(&mut raw.status_message, s.str_member()?)?,
            "createdAt" => once(&mut raw.created_at, s.str_member()?)?,
            "lastUpdatedAt" => once(&mut raw.last_updated_at, s.str_member()?)?,
            "resultType" => once(&mut raw.result_type, s.str_member()?)?,
            "ttlMs" | "ttl" => {
                let v = if s.null() { None } else { Some(s.u64()?) };
                let slot = if key == "ttlMs" {
                    &mut raw.ttl_ms
                } else {
                    &mut raw.ttl
                };
                once(slot, v)?;
            }
            "pollIntervalMs" => once(&mut raw.poll_interval_ms, s.u64()?)?,
            "pollInterval" => once(&mut raw.poll_interval, s.u64()?)?,
            "inputRequests" => once(&mut p.input_requests, s.skip()?)?,
            "result" => once(&mut p.result, s.skip()?)?,
            "error" => once(&mut p.error, s.skip()?)?,
            _ => {
                s.skip()?;
            }
        }
        if !s.next_member()? {
            return Some(());
        }
    }
}

/// `Some(None)` for an absent or `null` member (serde's `Option`), `Some(Some(v))` when built,
/// `None` when serde_json refuses the span (the serde path then reports it).
fn build<T: serde::de::DeserializeOwned>(span: Option<&[u8]>) -> Option<Option<T>> {
    match span {
        None | Some(b"null") => Some(None),
        Some(bytes) => serde_json::from_slice(bytes).ok().map(Some),
    }
}

/// Reads a JSON-RPC response whose `result` is a task object, or `None` to leave it to serde.
pub(crate) fn task_response<'a>(bytes: &'a [u8], limits: &Limits) -> Option<(Id, RawTask<'a>)> {
    if bytes.len() > limits.max_bytes {
        return None;
    }
    // One validation of the whole message: every borrowed `&str` below is then valid UTF-8.
    let text = core::str::from_utf8(bytes).ok()?;
    let mut s = Scan {
        text,
        b: bytes,
        i: 0,
        depth: 0,
        max_depth: limits.max_depth.min(SERDE_DEPTH),
        max_string: limits.max_string_bytes,
    };
    let mut raw = RawTask::default();
    let mut payload = Payload::default();
    let (mut jsonrpc, mut id, mut result) = (false, None, false);
    s.open(b'{')?;
    loop {
        match s.key()? {
            "jsonrpc" => {
                let t = s.string()?;
                if jsonrpc || t.raw != "2.0" || t.escaped {
                    return None;
                }
                jsonrpc = true;
            }
            "id" => {
                let v = if s.peek()? == b'"' {
                    Id::String(s.str_member()?.0.into_owned())
                } else {
                    // Non-negative integer ids only (what this endpoint sends); serde reads
                    // the rest (`-0`, `3.0`, ...).
                    Id::Number(i64::try_from(s.u64()?).ok()?)
                };
                once(&mut id, v)?;
            }
            "result" => {
                if result {
                    return None;
                }
                result = true;
                task(&mut s, &mut raw, &mut payload)?;
            }
            // An error answer (and any other reading) is the serde path's.
            "error" => return None,
            _ => {
                s.skip()?;
            }
        }
        if !s.next_member()? {
            break;
        }
    }
    s.ws();
    if s.i != bytes.len() || !jsonrpc || !result {
        return None;
    }
    // The whole message passed the limits: now the payload members may be built.
    raw.input_requests = build::<Map<String, Value>>(payload.input_requests)?;
    raw.result = build::<Value>(payload.result)?;
    raw.error = build::<Value>(payload.error)?;
    Some((id?, raw))
}

#[cfg(test)]
mod tests {
    use alloc::format;
    use alloc::string::{String, ToString};
    use alloc::vec;
    use alloc::vec::Vec;

    use proptest::prelude::*;

    use super::super::jsonrpc::{read_response, Answer};
    use super::super::task::{to_view, Kind, RawTask};
    use super::*;

    const GET: &str = r#"{"jsonrpc":"2.0","id":3,"result":{"taskId":"O7OCcp1ePmaBwKdFHFERdGPObKJyIc38bgNrR_XmiSc","status":"working","createdAt":"2026-11-29T15:07:54.708861+00:00","lastUpdatedAt":"2026-11-29T15:07:54.720461+00:00","ttlMs":900000,"pollIntervalMs":200,"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"fastmcp-tasks-probe","version":"4.1.4"}}}}"#;

    /// What a read gives, as text (errors by code and message) so both paths compare.
    fn shown(r: Result<(Id, RawTask<'_>), Error>) -> String {
        match r.and_then(|(id, raw)| Ok((id, to_view(raw, Kind::Get2026)?))) {
            Ok(v) => format!("{v:?}"),
            Err(e) => format!("error {} {e}", e.code()),
        }
    }

    use crate::error::Error;

    fn serde_path(bytes: &[u8], limits: &Limits) -> Option<String> {
        match read_response::<RawTask<'_>>(bytes, limits, "tasks/get answer") {
            Ok((id, Answer::Result(raw))) => Some(shown(Ok((id, raw)))),
            Ok((_, Answer::Error(_))) => None,
            Err(e) => Some(shown(Err(e))),
        }
    }

    /// The fast read never accepts what serde refuses, and reads what it accepts the same way.
    fn agrees(bytes: &[u8], limits: &Limits) -> bool {
        match task_response(bytes, limits) {
            None => false,
            Some(fast) => {
                let fast = shown(Ok(fast));
                assert_eq!(
                    Some(&fast),
                    serde_path(bytes, limits).as_ref(),
                    "{}",
                    String::from_utf8_lossy(bytes)
                );
                true
            }
        }
    }

    #[test]
    fn the_common_answers_take_the_fast_read() {
        let l = Limits::DEFAULT;
        assert!(agrees(GET.as_bytes(), &l));
        let with = |a: &str, b: &str| GET.replace(a, b);
        for text in [
            with("\"ttlMs\":900000", "\"ttlMs\":null"),
            with("\"id\":3", "\"id\":\"req-3\""),
            with("\"id\":3", "\"id\":\"r\\u00e9q\""),
            with("\"status\":\"working\"", "\"status\":\"completed\",\"result\":{\"content\":[],\"isError\":false}"),
            with("\"status\":\"working\"", "\"status\":\"failed\",\"error\":{\"code\":-32603,\"message\":\"m\"}"),
            with("\"status\":\"working\"", "\"status\":\"input_required\",\"inputRequests\":{\"k\":{\"method\":\"elicitation/create\"}}"),
            with("\"status\":\"working\"", "\"status\":\"working\",\"statusMessage\":\"caf\\u00e9 \\\"x\\\"\""),
            with("\"status\":\"working\"", "\"status\":\"working\",\"result\":null"),
            with("\"resultType\":\"complete\"", "\"resultType\":\"task\""),
            with("\"createdAt\":\"2026-11-29T15:07:54.708861+00:00\",", ""),
            with(",\"pollIntervalMs\":200", ""),
            with("\"ttlMs\":900000", "\"ttlMs\":900000,\"x\":[1,-2.5e3,true,false,null,{},[],\"\\n\"]"),
            with(":", " : ").replace(',', " ,\n\t"),
            with("\"taskId\":\"O7", "\"taskId\":\"\u{e9}O7"),
        ] {
            assert!(agrees(text.as_bytes(), &l), "took the serde path: {text}");
        }
    }

    #[test]
    fn whatever_the_fast_read_leaves_goes_to_serde() {
        let l = Limits::DEFAULT;
        let with = |a: &str, b: &str| GET.replace(a, b);
        for text in [
            String::new(),
            "null".to_string(),
            with(
                "\"status\":\"working\"",
                "\"status\":\"working\",\"status\":\"completed\"",
            ),
            with("\"id\":3", "\"id\":3,\"id\":4"),
            with("\"taskId\"", "\"task\\u0049d\""),
            with("\"ttlMs\":900000", "\"ttlMs\":900000.0"),
            with("\"ttlMs\":900000", "\"ttlMs\":-1"),
            with("\"ttlMs\":900000", "\"ttlMs\":99999999999999999999"),
            with("\"ttlMs\":900000", "\"ttlMs\":0900000"),
            with("\"pollIntervalMs\":200", "\"pollIntervalMs\":null"),
            with("\"id\":3", "\"id\":3.5"),
            with("\"id\":3", "\"id\":-0"),
            with("\"id\":3", "\"id\":null"),
            with("\"jsonrpc\":\"2.0\"", "\"jsonrpc\":\"1.0\""),
            with("\"jsonrpc\":\"2.0\",", ""),
            with("\"status\":\"working\"", "\"status\":null"),
            with("\"status\":\"working\"", "\"status\":\"work\u{1}ing\""),
            with("\"version\":\"4.1.4\"", "\"version\":\"4.1.4\\x\""),
            with("\"version\":\"4.1.4\"", "\"version\":\"\\u12\""),
            with("\"version\":\"4.1.4\"", "\"version\":01"),
            with("\"version\":\"4.1.4\"", "\"version\":tru"),
            with("\"version\":\"4.1.4\"", "\"version\":[1,]"),
            with(
                "\"status\":\"working\"",
                "\"status\":\"completed\",\"result\":{\"a\":\"\\ud800\"}",
            ),
            format!("{GET} x"),
            format!("{GET}}}"),
            GET.replace(
                "\"result\":{",
                "\"error\":{\"code\":1,\"message\":\"m\"},\"r\":{",
            ),
            GET.replace("\"result\":{", "\"result\":[{"),
        ] {
            assert!(
                task_response(text.as_bytes(), &l).is_none(),
                "fast read took: {text}"
            );
        }
        let mut bad = GET.as_bytes().to_vec();
        bad.insert(80, 0xff);
        assert!(task_response(&bad, &l).is_none());
    }

    #[test]
    fn the_limits_hold_before_anything_is_built() {
        let deep = GET.replace(
            "\"version\":\"4.1.4\"",
            &format!("\"v\":{}1{}", "[".repeat(70), "]".repeat(70)),
        );
        assert!(task_response(deep.as_bytes(), &Limits::DEFAULT).is_none());
        let big = GET.replace(
            "\"status\":\"working\"",
            &format!(
                "\"status\":\"completed\",\"result\":{{\"p\":\"{}\"}}",
                "x".repeat(2000)
            ),
        );
        let tight = Limits {
            max_string_bytes: 1000,
            ..Limits::DEFAULT
        };
        assert!(task_response(big.as_bytes(), &tight).is_none());
        assert!(agrees(big.as_bytes(), &Limits::DEFAULT));
        let small = Limits {
            max_bytes: GET.len() - 1,
            ..Limits::DEFAULT
        };
        assert!(task_response(GET.as_bytes(), &small).is_none());
        // A limit broken after the payload is not built from it either.
        let late = GET.replace(
            "\"pollIntervalMs\":200,",
            "\"pollIntervalMs\":200,\"result\":{\"a\":1},",
        ) + &" ".repeat(0);
        let late = late.replace("\"4.1.4\"", &format!("\"{}\"", "y".repeat(1001)));
        assert!(task_response(late.as_bytes(), &tight).is_none());
    }

    #[test]
    fn stops_are_found_in_every_lane() {
        for len in 0..20 {
            for stopper in [b'"', b'\\', 0x1f, 0x00] {
                let mut v: Vec<u8> = core::iter::repeat_n(b'a', len).collect();
                v.push(stopper);
                v.extend_from_slice(b"aaaaaaaaa\"");
                assert_eq!(stop(&v), Some(len));
            }
            let v: Vec<u8> = core::iter::repeat_n(0x7f_u8, len).collect();
            assert_eq!(stop(&v), None);
        }
        assert_eq!(stop(&[0x21, 0x5b, 0xff, 0x80, 0x5d, 0x5c]), Some(5));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn mutated_answers_read_as_serde_reads_them(
            pos in 0usize..400,
            byte in prop::sample::select(b"\"\\{}[],:0123456789-.eE \ntfnul\x01\xc3\xa9a".to_vec()),
            cut in 0usize..400,
            op in 0u8..3,
        ) {
            let mut v = GET.as_bytes().to_vec();
            let p = pos.min(v.len());
            match op {
                0 => v.insert(p, byte),
                1 => { if p < v.len() { v.remove(p); } }
                _ => { if let Some(b) = v.get_mut(p) { *b = byte; } }
            }
            let _ = agrees(&v, &Limits::DEFAULT);
            v.truncate(cut.min(v.len()));
            let _ = agrees(&v, &Limits::DEFAULT);
        }

        #[test]
        fn generated_tasks_read_as_serde_reads_them(
            status in prop::sample::select(vec!["working", "completed", "failed", "input_required", "cancelled", "nope"]),
            ttl in prop::option::of(prop::option::of(0u64..u64::MAX)),
            poll in prop::option::of(0u64..10_000),
            message in prop::option::of("[a-z\"\\\\\u{e9} ]{0,12}"),
            payload in prop::sample::select(vec!["", ",\"result\":{\"isError\":true}", ",\"result\":7", ",\"error\":{\"code\":1}", ",\"error\":[]", ",\"inputRequests\":{}", ",\"inputRequests\":{\"a\":{\"method\":\"m\"},\"b\":1}"]),
            limit in 8usize..64,
        ) {
            let mut t = format!("{{\"taskId\":\"t\",\"status\":\"{status}\",\"createdAt\":\"2026-11-29T15:07:54Z\",\"lastUpdatedAt\":\"2026-11-29T15:07:55Z\"");
            match ttl {
                Some(Some(n)) => t += &format!(",\"ttlMs\":{n}"),
                Some(None) => t += ",\"ttlMs\":null",
                None => {}
            }
            if let Some(p) = poll { t += &format!(",\"pollIntervalMs\":{p}"); }
            if let Some(m) = message {
                t += &format!(",\"statusMessage\":{}", serde_json::to_string(&m).unwrap_or_default());
            }
            t += payload;
            let text = format!("{{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{t}}}}}");
            prop_assert!(agrees(text.as_bytes(), &Limits::DEFAULT), "{}", text);
            let tight = Limits { max_string_bytes: limit, max_depth: 3, ..Limits::DEFAULT };
            let _ = agrees(text.as_bytes(), &tight);
        }
    }
}
