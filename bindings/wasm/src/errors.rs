//! One conversion from [`longcall::Error`] to a thrown JavaScript `Error`, used by every export.

use longcall::Error;
use wasm_bindgen::JsValue;

/// What every fallible export returns: the `Err` side is thrown in JavaScript.
pub type JsResult<T> = Result<T, JsValue>;

/// A JavaScript `Error` whose `message` is the error's `Display` and whose `code` property is
/// [`Error::code`] (a stable snake_case string such as `"unknown_status"`).
pub fn to_js(err: &Error) -> JsValue {
    let js = js_sys::Error::new(&without_position(&err.to_string()));
    // Reflect.set on a fresh Error object cannot fail; if it ever did, the message still stands.
    let _ = js_sys::Reflect::set(
        &js,
        &JsValue::from_str("code"),
        &JsValue::from_str(err.code()),
    );
    js.into()
}

/// The message without a JSON reader's ` at line N column M` (a JavaScript argument is one
/// value, not a file; the position only adds noise).
pub fn without_position(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(i) = rest.find(" at line ") {
        let (head, tail) = rest.split_at(i);
        out.push_str(head);
        let after = tail
            .trim_start_matches(" at line ")
            .trim_start_matches(|c: char| c.is_ascii_digit());
        match after.strip_prefix(" column ") {
            Some(col) => rest = col.trim_start_matches(|c: char| c.is_ascii_digit()),
            None => {
                out.push_str(" at line ");
                rest = tail.get(" at line ".len()..).unwrap_or("");
            }
        }
    }
    out.push_str(rest);
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
    fn positions_are_removed() {
        assert_eq!(
            without_position("invalid snapshot: expected value at line 1 column 1"),
            "invalid snapshot: expected value"
        );
        assert_eq!(
            without_position("a at line 2 column 30: b at line 9 column 9"),
            "a: b"
        );
        assert_eq!(
            without_position("wait at line 5 please"),
            "wait at line 5 please"
        );
        assert_eq!(without_position("plain"), "plain");
    }
}
