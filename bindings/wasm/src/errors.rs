//! One conversion from [`longcall::Error`] to a thrown JavaScript `Error`, used by every export.

#[allow(unused_imports)]
use crate::prelude::*;

use longcall::Error;
use wasm_bindgen::JsValue;

/// What every fallible export returns: the `Err` side is thrown in JavaScript.
pub type JsResult<T> = Result<T, JsValue>;

/// A JavaScript `Error` whose `message` is the error's `Display` and whose `code` property is
/// [`Error::code`] (a stable snake_case string such as `"unknown_status"`).
pub fn to_js(err: &Error) -> JsValue {
    let message = spelled_for_js(err);
    // Only a JSON reader's message has a position, and the small build (`client` alone) reads
    // no JSON: it skips the scan.
    #[cfg(feature = "std")]
    let message = without_reader_noise(&message);
    let js = js_sys::Error::new(&message);
    // Reflect.set on a fresh Error object cannot fail; if it ever did, the message still stands.
    let _ = js_sys::Reflect::set(
        &js,
        &JsValue::from_str("code"),
        &JsValue::from_str(err.code()),
    );
    js.into()
}

/// The message without a JSON reader's ` at line N column M` (a JavaScript argument is one
/// value, not a file; the position only adds noise), and with serde's name of the Rust type a
/// value was read into (`expected struct TaskView`, `expected internally tagged enum
/// CancelAnswer`) said as JavaScript has it: `expected an object`.
pub fn without_reader_noise(message: &str) -> String {
    // A byte scan, not `str::find`: the substring searcher would add several KB to the small
    // build for this one use.
    const AT: &[u8] = b" at line ";
    const COLUMN: &[u8] = b" column ";
    let bytes = message.as_bytes();
    let digits = |from: usize| {
        bytes.get(from..).map_or(0, |rest| {
            rest.iter().take_while(|b| b.is_ascii_digit()).count()
        })
    };
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    'scan: while let Some(&b) = bytes.get(i) {
        for rust in [
            &b"expected struct "[..],
            b"expected internally tagged enum ",
        ] {
            if bytes.get(i..i + rust.len()) == Some(rust) {
                let name = bytes.get(i + rust.len()..).map_or(0, |rest| {
                    rest.iter()
                        .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
                        .count()
                });
                out.extend_from_slice(b"expected an object");
                i += rust.len() + name;
                continue 'scan;
            }
        }
        if bytes.get(i..i + AT.len()) == Some(AT) {
            let line = digits(i + AT.len());
            let col_at = i + AT.len() + line;
            if line > 0 && bytes.get(col_at..col_at + COLUMN.len()) == Some(COLUMN) {
                let col = digits(col_at + COLUMN.len());
                if col > 0 {
                    i = col_at + COLUMN.len() + col;
                    continue;
                }
            }
        }
        out.push(b);
        i += 1;
    }
    // Only whole ASCII runs were removed, so the rest is still UTF-8.
    String::from_utf8(out).unwrap_or_else(|_| message.into())
}

/// The error's message with the names of configuration and input fields spelled as JavaScript
/// writes them (`capMs`, not the core's `cap_ms`). A configuration reason names only fields,
/// so its message is converted whole (an unknown key, which quotes the caller's spelling, is
/// refused in JavaScript, `pkg/config.js`). An input reason may quote a value (`jobs_wait`, a
/// Sume method), so only its field is converted.
fn spelled_for_js(err: &Error) -> String {
    match err {
        Error::InvalidConfig { .. } => camel(&err.message()),
        Error::InvalidInput { field, reason } => Error::InvalidInput {
            field: camel(field),
            reason: reason.clone(),
        }
        .message(),
        _ => err.message(),
    }
}

/// `snake_case` to `camelCase`: each `_` joins the next character in upper case (a leading one
/// is kept). Text without `_` comes back unchanged, so a name already in camelCase passes.
pub fn camel(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut up = false;
    for c in text.chars() {
        if c == '_' && !out.is_empty() {
            up = true;
        } else if up {
            out.push(c.to_ascii_uppercase());
            up = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// Maps a core result into an export result (`.map_err(to_js)` with the borrow done for you).
pub fn js<T>(result: Result<T, Error>) -> JsResult<T> {
    result.map_err(|e| to_js(&e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rust_type_names_are_said_as_objects() {
        assert_eq!(
            without_reader_noise("input: invalid type: null, expected struct Flat"),
            "input: invalid type: null, expected an object"
        );
        assert_eq!(
            without_reader_noise(
                "a: invalid type: string \"x\", expected internally tagged enum CancelAnswer; \
                 b: expected struct Limits"
            ),
            "a: invalid type: string \"x\", expected an object; b: expected an object"
        );
    }

    #[test]
    fn positions_are_removed() {
        assert_eq!(
            without_reader_noise("invalid snapshot: expected value at line 1 column 1"),
            "invalid snapshot: expected value"
        );
        assert_eq!(
            without_reader_noise("a at line 2 column 30: b at line 9 column 9"),
            "a: b"
        );
        assert_eq!(
            without_reader_noise("wait at line 5 please"),
            "wait at line 5 please"
        );
        assert_eq!(without_reader_noise("plain"), "plain");
    }

    #[test]
    fn field_names_are_spelled_as_javascript_writes_them() {
        let cap = Error::invalid_config("cap_ms", "must not be below initial_ms");
        assert_eq!(
            spelled_for_js(&cap),
            "invalid configuration: capMs: must not be below initialMs"
        );
        // Already camelCase (the wasm option readers name keys as given): unchanged.
        let given = Error::invalid_config("poll.capMs", "must be at most 2^53-1");
        assert_eq!(spelled_for_js(&given), given.to_string());
        // An input reason may quote a value in snake_case: only the field is converted.
        let ids = Error::invalid_input("job_ids", "1 to 20 ids per jobs_wait");
        assert_eq!(
            spelled_for_js(&ids),
            "invalid input: jobIds: 1 to 20 ids per jobs_wait"
        );
        let other = Error::UnknownModel {
            raw: "task_2025".into(),
        };
        assert_eq!(spelled_for_js(&other), other.to_string());
    }
}
