//! Wall-clock text on the wire, turned into milliseconds since the Unix epoch (M-14, and the
//! `Retry-After` forms of P-4).
//!
//! * RFC 3339 / ISO-8601 timestamps as MCP servers send them: `2026-11-29T15:00:32.372Z` (the
//!   TypeScript SDK) and `2026-11-29T15:07:54.708861+00:00` (fastmcp). Any offset is accepted and
//!   applied; fractional seconds of any length are truncated to milliseconds; `T`, `t` or a space
//!   separate date and time. Times before 1970 are [`Error::Malformed`] (the core counts in `u64`).
//! * HTTP dates (RFC 9110 IMF-fixdate, `Sun, 06 Nov 1994 08:49:37 GMT`) and `Retry-After` in both
//!   of its forms (delta-seconds or an HTTP date).
//!
//! Nothing here reads a clock: a `Retry-After` date is turned into a delay against the `now_ms`
//! the host passes in.
//!
//! The times the core hands out are at most [`LATEST`] ([`later`]), so a JavaScript host reads
//! back exactly the time it was given and can pass it in again.

use alloc::format;
use alloc::string::String;

use crate::error::Error;

/// The latest time (and the longest delay) the core hands out (S-8): 2^53 - 1 ms, some 285,000 years,
/// the largest integer a JavaScript number holds exactly. A wake-up further away (a server's
/// absurd `pollIntervalMs` or `Retry-After`) is due then, which no clock reaches.
pub const LATEST: u64 = (1 << 53) - 1;

/// `now + delay`, at most [`LATEST`]. (A `now` already past it is the host's own clock, kept:
/// the sum only saturates, so a wake-up is never due before its delay.)
///
/// ```
/// use longcall::time::{later, LATEST};
/// assert_eq!(later(1_000, 500), 1_500);
/// assert_eq!(later(1_000, u64::MAX), LATEST);
/// ```
#[must_use]
pub fn later(now: u64, delay: u64) -> u64 {
    let at = now.saturating_add(delay);
    if now <= LATEST {
        at.min(LATEST)
    } else {
        at
    }
}

fn bad(what: &'static str, reason: &str) -> Error {
    Error::Malformed {
        what,
        reason: reason.into(),
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let m = i64::from(m);
    let mp = if m > 2 { m - 3 } else { m + 9 };
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The (year, month, day) of a day count since 1970-01-01.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = if z >= 0 { z } else { z - 146_096 } / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

fn days_in_month(y: i64, m: u32) -> u32 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ => {
            if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 {
                29
            } else {
                28
            }
        }
    }
}

/// A little cursor over ASCII bytes.
struct Cur<'a> {
    b: &'a [u8],
    i: usize,
}

impl Cur<'_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }
    fn byte(&mut self, want: u8) -> bool {
        if self.peek() == Some(want) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn digits(&mut self, n: usize) -> Option<u32> {
        let mut v: u32 = 0;
        for _ in 0..n {
            let c = self.peek()?;
            if !c.is_ascii_digit() {
                return None;
            }
            v = v * 10 + u32::from(c - b'0');
            self.i += 1;
        }
        Some(v)
    }
    /// `hh:mm:ss`, the time of day both formats share.
    fn clock(&mut self) -> Option<(u32, u32, u32)> {
        let h = self.digits(2)?;
        self.byte(b':').then_some(())?;
        let m = self.digits(2)?;
        self.byte(b':').then_some(())?;
        Some((h, m, self.digits(2)?))
    }

    fn done(&self) -> bool {
        self.i >= self.b.len()
    }
}

fn to_ms(
    what: &'static str,
    (y, mo, d): (i64, u32, u32),
    (h, mi, s): (u32, u32, u32),
    frac_ms: u32,
    offset_min: i64,
) -> Result<u64, Error> {
    if !(1..=12).contains(&mo) || d == 0 || d > days_in_month(y, mo) {
        return Err(bad(what, "date out of range"));
    }
    // 60 is a leap second; it is counted as the first second of the next minute.
    if h > 23 || mi > 59 || s > 60 {
        return Err(bad(what, "time of day out of range"));
    }
    let secs = days_from_civil(y, mo, d) * 86_400
        + i64::from(h) * 3600
        + i64::from(mi) * 60
        + i64::from(s)
        - offset_min * 60;
    if secs < 0 {
        return Err(bad(what, "before 1970-01-01T00:00:00Z"));
    }
    Ok((secs as u64)
        .saturating_mul(1000)
        .saturating_add(u64::from(frac_ms)))
}

/// Reads an RFC 3339 timestamp into milliseconds since the Unix epoch.
///
/// ```
/// use longcall::time::parse_rfc3339_ms;
/// assert_eq!(parse_rfc3339_ms("1970-01-01T00:00:01.5Z").unwrap(), 1500);
/// assert_eq!(
///     parse_rfc3339_ms("2026-11-29T15:07:54.708861+00:00").unwrap(),
///     parse_rfc3339_ms("2026-11-29T15:07:54.708Z").unwrap()
/// );
/// assert_eq!(parse_rfc3339_ms("2026-11-29T16:07:54+01:00").unwrap(), parse_rfc3339_ms("2026-11-29T15:07:54Z").unwrap());
/// assert!(parse_rfc3339_ms("yesterday").is_err());
/// ```
pub fn parse_rfc3339_ms(text: &str) -> Result<u64, Error> {
    const W: &str = "timestamp";
    let mut c = Cur {
        b: text.as_bytes(),
        i: 0,
    };
    let shape = || bad(W, "expected YYYY-MM-DDTHH:MM:SS[.frac](Z|+HH:MM)");
    let y = c.digits(4).ok_or_else(shape)?;
    if !c.byte(b'-') {
        return Err(shape());
    }
    let mo = c.digits(2).ok_or_else(shape)?;
    if !c.byte(b'-') {
        return Err(shape());
    }
    let d = c.digits(2).ok_or_else(shape)?;
    if !(c.byte(b'T') || c.byte(b't') || c.byte(b' ')) {
        return Err(shape());
    }
    let (h, mi, s) = c.clock().ok_or_else(shape)?;
    let mut frac_ms = 0u32;
    if c.byte(b'.') || c.byte(b',') {
        let start = c.i;
        let mut n = 0usize;
        while let Some(ch) = c.peek() {
            if !ch.is_ascii_digit() {
                break;
            }
            if n < 3 {
                frac_ms = frac_ms * 10 + u32::from(ch - b'0');
            }
            n += 1;
            c.i += 1;
        }
        if c.i == start {
            return Err(shape());
        }
        for _ in n..3 {
            frac_ms *= 10;
        }
    }
    let offset_min: i64 = if c.byte(b'Z') || c.byte(b'z') {
        0
    } else {
        let sign = if c.byte(b'+') {
            1
        } else if c.byte(b'-') {
            -1
        } else {
            return Err(bad(W, "missing time zone offset (Z or +HH:MM)"));
        };
        let oh = c.digits(2).ok_or_else(shape)?;
        if !c.byte(b':') {
            return Err(shape());
        }
        let om = c.digits(2).ok_or_else(shape)?;
        if oh > 23 || om > 59 {
            return Err(bad(W, "offset out of range"));
        }
        sign * (i64::from(oh) * 60 + i64::from(om))
    };
    if !c.done() {
        return Err(bad(W, "trailing characters"));
    }
    to_ms(W, (i64::from(y), mo, d), (h, mi, s), frac_ms, offset_min)
}

/// Writes milliseconds since the Unix epoch as `YYYY-MM-DDTHH:MM:SS.sssZ`.
///
/// ```
/// use longcall::time::{format_rfc3339_ms, parse_rfc3339_ms};
/// assert_eq!(format_rfc3339_ms(1500), "1970-01-01T00:00:01.500Z");
/// let ms = parse_rfc3339_ms("2026-11-29T15:00:32.372Z").unwrap();
/// assert_eq!(format_rfc3339_ms(ms), "2026-11-29T15:00:32.372Z");
/// ```
#[must_use]
pub fn format_rfc3339_ms(ms: u64) -> String {
    let secs = ms / 1000;
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let (y, mo, d) = civil_from_days(days);
    format!(
        "{y:04}-{mo:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        ms % 1000
    )
}

const MONTHS: [&[u8; 3]; 12] = [
    b"Jan", b"Feb", b"Mar", b"Apr", b"May", b"Jun", b"Jul", b"Aug", b"Sep", b"Oct", b"Nov", b"Dec",
];

/// Reads an HTTP date in the IMF-fixdate form (`Sun, 06 Nov 1994 08:49:37 GMT`, RFC 9110 §5.6.7)
/// into milliseconds since the Unix epoch. The weekday is not checked against the date.
///
/// ```
/// use longcall::time::parse_http_date_ms;
/// assert_eq!(parse_http_date_ms("Sun, 06 Nov 1994 08:49:37 GMT").unwrap(), 784_111_777_000);
/// assert!(parse_http_date_ms("Sunday").is_err());
/// ```
pub fn parse_http_date_ms(text: &str) -> Result<u64, Error> {
    const W: &str = "HTTP date";
    let shape = || {
        bad(
            W,
            "expected IMF-fixdate like \"Sun, 06 Nov 1994 08:49:37 GMT\"",
        )
    };
    let text = text.trim();
    let b = text.as_bytes();
    let rest = match b.get(3..5) {
        Some(b", ") => b.get(5..).ok_or_else(shape)?,
        _ => return Err(shape()),
    };
    let mut c = Cur { b: rest, i: 0 };
    let d = c.digits(2).ok_or_else(shape)?;
    if !c.byte(b' ') {
        return Err(shape());
    }
    let mon = rest.get(c.i..c.i + 3).ok_or_else(shape)?;
    let mo = MONTHS
        .iter()
        .position(|m| m.as_slice() == mon)
        .ok_or_else(|| bad(W, "unknown month"))? as u32
        + 1;
    c.i += 3;
    if !c.byte(b' ') {
        return Err(shape());
    }
    let y = c.digits(4).ok_or_else(shape)?;
    if !c.byte(b' ') {
        return Err(shape());
    }
    let (h, mi, s) = c.clock().ok_or_else(shape)?;
    if rest.get(c.i..) != Some(b" GMT".as_slice()) {
        return Err(shape());
    }
    to_ms(W, (i64::from(y), mo, d), (h, mi, s), 0, 0)
}

/// Reads a `Retry-After` header value as a delay in milliseconds: delta-seconds (`120`) or an
/// HTTP date, measured from `now_ms` (a date in the past is a delay of 0).
///
/// ```
/// use longcall::time::{parse_retry_after_ms, parse_http_date_ms};
/// assert_eq!(parse_retry_after_ms("120", 0).unwrap(), 120_000);
/// let at = parse_http_date_ms("Sun, 06 Nov 1994 08:49:37 GMT").unwrap();
/// assert_eq!(parse_retry_after_ms("Sun, 06 Nov 1994 08:49:37 GMT", at - 5_000).unwrap(), 5_000);
/// assert_eq!(parse_retry_after_ms("Sun, 06 Nov 1994 08:49:37 GMT", at + 1).unwrap(), 0);
/// assert_eq!(parse_retry_after_ms("soon", 0).unwrap_err().code(), "malformed");
/// ```
pub fn parse_retry_after_ms(value: &str, now_ms: u64) -> Result<u64, Error> {
    let v = value.trim();
    if v.is_empty() {
        return Err(bad("Retry-After", "empty"));
    }
    if v.bytes().all(|c| c.is_ascii_digit()) {
        // Saturate rather than fail on absurdly long digit strings: the answer is "a long time".
        let secs = v.bytes().fold(0u64, |acc, c| {
            acc.saturating_mul(10).saturating_add(u64::from(c - b'0'))
        });
        return Ok(secs.saturating_mul(1000).min(LATEST));
    }
    let at = parse_http_date_ms(v).map_err(|_| {
        bad(
            "Retry-After",
            "neither delta-seconds nor an IMF-fixdate HTTP date",
        )
    })?;
    Ok(at.saturating_sub(now_ms))
}

/// The `Retry-After` of an answer's `headers` (any case), in ms from `now_ms`; `None` when the
/// answer has none or one [`parse_retry_after_ms`] cannot read.
///
/// ```
/// use longcall::time::retry_after_header_ms;
/// let headers = [("retry-after".to_string(), "3".to_string())];
/// assert_eq!(retry_after_header_ms(&headers, 0), Some(3_000));
/// assert_eq!(retry_after_header_ms(&[], 0), None);
/// ```
#[must_use]
pub fn retry_after_header_ms(headers: &[(String, String)], now_ms: u64) -> Option<u64> {
    headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("retry-after"))
        .and_then(|(_, v)| parse_retry_after_ms(v, now_ms).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_retry_after_of_ages_is_the_latest_delay() {
        assert_eq!(
            parse_retry_after_ms("99999999999999999999", 0).unwrap(),
            LATEST
        );
        assert_eq!(parse_retry_after_ms("9007199254741", 0).unwrap(), LATEST);
        assert_eq!(
            parse_retry_after_ms("9007199254740", 0).unwrap(),
            9_007_199_254_740_000
        );
        assert_eq!(later(LATEST - 1, 5), LATEST);
        // A host clock already past it is kept, never moved back.
        assert_eq!(later(u64::MAX - 10, 5), u64::MAX - 5);
    }

    #[test]
    fn epoch_and_known_points() {
        assert_eq!(parse_rfc3339_ms("1970-01-01T00:00:00Z").unwrap(), 0);
        assert_eq!(
            parse_rfc3339_ms("2000-03-01T00:00:00Z").unwrap(),
            951_868_800_000
        );
        assert_eq!(
            parse_rfc3339_ms("2026-11-29T15:00:32.372Z").unwrap(),
            1_795_964_432_372
        );
        assert_eq!(
            parse_rfc3339_ms("2026-11-29T15:00:32.372999999+00:00").unwrap(),
            1_795_964_432_372
        );
        assert_eq!(
            parse_rfc3339_ms("2026-11-29T10:00:32.372-05:00").unwrap(),
            1_795_964_432_372
        );
    }

    #[test]
    fn format_round_trips_over_a_range() {
        let mut ms = 0u64;
        while ms < 5_000_000_000_000 {
            assert_eq!(parse_rfc3339_ms(&format_rfc3339_ms(ms)).unwrap(), ms);
            ms += 7_777_777_777;
        }
    }

    #[test]
    fn rejects() {
        for bad in [
            "",
            "2026-13-01T00:00:00Z",
            "2026-02-30T00:00:00Z",
            "2026-02-01T24:00:00Z",
            "2026-02-01T00:00:00",
            "2026-02-01T00:00:00.Z",
            "2026-02-01T00:00:00Zjunk",
            "1969-12-31T23:59:59Z",
            "2026-02-01",
            "２０２６-02-01T00:00:00Z",
        ] {
            assert_eq!(
                parse_rfc3339_ms(bad).unwrap_err().code(),
                "malformed",
                "{bad}"
            );
        }
        assert!(parse_rfc3339_ms("2024-02-29T00:00:00Z").is_ok());
        assert!(parse_rfc3339_ms("2023-02-29T00:00:00Z").is_err());
        assert!(parse_http_date_ms("Sun, 06 Foo 1994 08:49:37 GMT").is_err());
        assert!(parse_http_date_ms("Sun, 06 Nov 1994 08:49:37 UTC").is_err());
        assert!(parse_retry_after_ms("-5", 0).is_err());
        assert!(parse_retry_after_ms("1.5", 0).is_err());
        assert_eq!(
            parse_retry_after_ms("99999999999999999999999", 0).unwrap(),
            LATEST
        );
    }
}
