//! Guarded JSON reading (S-3): every byte from a peer goes through here before serde sees it.
//!
//! [`check`] is one cheap pass over the bytes that enforces [`Limits`] without building anything:
//! total size, nesting depth (string contents are skipped, so `"[[["` inside a string does not
//! count), and the length of each string. Hostile nesting is therefore [`Error::TooDeep`] before
//! any recursive parser runs, never a stack overflow (serde_json's own recursion limit is 128;
//! [`Limits::max_depth`] above that is reported as [`Error::Malformed`] by serde_json instead).
//! Everything else (syntax, invalid UTF-8, empty input, numbers that do not fit the field they are
//! read into) is [`Error::Malformed`] with serde_json's explanation.

use alloc::string::ToString;

use serde::Deserialize;
use serde_json::Value;

use crate::error::Error;

/// Limits for one wire message.
///
/// ```
/// use longcall::wire::{read_json_with, Limits};
/// let tight = Limits { max_depth: 2, ..Limits::DEFAULT };
/// assert_eq!(read_json_with(b"[[[1]]]", &tight).unwrap_err().code(), "too_deep");
/// assert!(read_json_with(b"[[1]]", &tight).is_ok());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Limits {
    /// Largest message in bytes (default 4 MiB).
    pub max_bytes: usize,
    /// Deepest nesting of arrays and objects (default 64).
    pub max_depth: usize,
    /// Longest single string (key or value) in bytes as written, escapes included (default 4
    /// MiB, the message's own limit: a tool result's base64 image is one long string, and a
    /// result that fits a message must not be dropped for it).
    pub max_string_bytes: usize,
}

impl Limits {
    /// 4 MiB messages, 64 levels, strings as long as the message.
    pub const DEFAULT: Limits = Limits {
        max_bytes: 4 * 1024 * 1024,
        max_depth: 64,
        max_string_bytes: 4 * 1024 * 1024,
    };

    /// Refuses limits that no message passes (rule E-3): a limit of 0 would refuse every
    /// answer, so a call would stop at its first one instead of being watched.
    ///
    /// ```
    /// use longcall::wire::Limits;
    /// let none = Limits { max_bytes: 0, ..Limits::DEFAULT };
    /// assert_eq!(none.check().unwrap_err().to_string(), "invalid configuration: max_bytes: must be at least 1");
    /// assert!(Limits::DEFAULT.check().is_ok());
    /// ```
    ///
    /// Errors: [`Error::InvalidConfig`] naming the first limit that is 0.
    pub fn check(&self) -> Result<(), Error> {
        let limits = [
            ("max_bytes", self.max_bytes),
            ("max_depth", self.max_depth),
            ("max_string_bytes", self.max_string_bytes),
        ];
        match limits.iter().find(|(_, n)| *n == 0) {
            Some((field, _)) => Err(Error::invalid_config(field, "must be at least 1")),
            None => Ok(()),
        }
    }
}

// Read member by member (`tagged::in_order`): a missing member takes its default, other
// members are skipped, the derived reader's messages.
impl<'de> serde::Deserialize<'de> for Limits {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        const FIELDS: &[&str] = &["max_bytes", "max_depth", "max_string_bytes"];
        let mut l = Limits::DEFAULT;
        crate::tagged::in_order(d, "struct Limits", FIELDS, &mut |i, v| {
            let n = serde::Deserialize::deserialize(v)?;
            match i {
                0 => l.max_bytes = n,
                1 => l.max_depth = n,
                _ => l.max_string_bytes = n,
            }
            Ok(())
        })?;
        l.check()
            .map_err(|e| serde::de::Error::custom(e.message()))?;
        Ok(l)
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits::DEFAULT
    }
}

/// Checks `bytes` against `limits` in one pass, without parsing.
///
/// Errors: [`Error::TooLarge`] (`what` is `"JSON message"` or `"JSON string"`),
/// [`Error::TooDeep`].
pub fn check(bytes: &[u8], limits: &Limits) -> Result<(), Error> {
    if bytes.len() > limits.max_bytes {
        return Err(Error::TooLarge {
            what: "JSON message",
            limit: limits.max_bytes,
            actual: bytes.len(),
        });
    }
    let n = bytes.len();
    // A string cannot be longer than the message: skip the per-string check when it cannot fire.
    let check_strings = limits.max_string_bytes < n;
    let mut depth = 0usize;
    let mut i = 0usize;
    while let Some(&b) = bytes.get(i) {
        i += 1;
        match b {
            b'"' => {
                let start = i;
                loop {
                    let next = bytes
                        .get(i..)
                        .and_then(|rest| rest.iter().position(|&c| c == b'"' || c == b'\\'));
                    match next {
                        Some(off) => {
                            i += off;
                            if bytes.get(i) == Some(&b'\\') {
                                i += 2;
                                continue;
                            }
                            break;
                        }
                        None => {
                            i = n;
                            break;
                        }
                    }
                }
                let len = i.min(n).saturating_sub(start);
                if check_strings && len > limits.max_string_bytes {
                    return Err(string_too_large(limits, len));
                }
                i += 1;
            }
            b'[' | b'{' => {
                depth += 1;
                if depth > limits.max_depth {
                    return Err(Error::TooDeep {
                        limit: limits.max_depth,
                    });
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

fn string_too_large(limits: &Limits, len: usize) -> Error {
    Error::TooLarge {
        what: "JSON string",
        limit: limits.max_string_bytes,
        actual: len,
    }
}

/// A serde_json error as [`Error::Malformed`].
pub(crate) fn malformed(what: &'static str, e: &serde_json::Error) -> Error {
    Error::Malformed {
        what,
        reason: e.to_string(),
    }
}

/// Checks the limits, then deserializes `T` straight from the bytes (no intermediate `Value`).
pub(crate) fn from_slice<'a, T: Deserialize<'a>>(
    bytes: &'a [u8],
    limits: &Limits,
    what: &'static str,
) -> Result<T, Error> {
    check(bytes, limits)?;
    serde_json::from_slice(bytes).map_err(|e| malformed(what, &e))
}

/// Reads one JSON value with [`Limits::DEFAULT`]. Accepts `&str`, `&[u8]`, `Vec<u8>`, ...
///
/// ```
/// use longcall::wire::read_json;
/// assert_eq!(read_json("{\"a\":1}").unwrap()["a"], 1);
/// assert_eq!(read_json(b"").unwrap_err().code(), "malformed");
/// assert_eq!(read_json(b"\"\xff\"").unwrap_err().code(), "malformed");
/// let deep = "[".repeat(100_000);
/// assert_eq!(read_json(&deep).unwrap_err().code(), "too_deep");
/// ```
pub fn read_json<B: AsRef<[u8]> + ?Sized>(input: &B) -> Result<Value, Error> {
    read_json_with(input, &Limits::DEFAULT)
}

/// Reads one JSON value under `limits`.
pub fn read_json_with<B: AsRef<[u8]> + ?Sized>(input: &B, limits: &Limits) -> Result<Value, Error> {
    from_slice(input.as_ref(), limits, "JSON")
}

/// Reads a millisecond (or any non-negative integer) field of a JSON value: a non-negative
/// integer that fits `u64`. Floats, negatives and huge numbers are [`Error::Malformed`].
pub fn ms_field(value: &Value, what: &'static str) -> Result<u64, Error> {
    value.as_u64().ok_or_else(|| Error::Malformed {
        what,
        reason: "expected a non-negative integer that fits 64 bits".into(),
    })
}
