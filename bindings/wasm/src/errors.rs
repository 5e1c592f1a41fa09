//! One conversion from [`longcall::Error`] to a thrown JavaScript `Error`, used by every export.

use longcall::Error;
use wasm_bindgen::JsValue;

/// What every fallible export returns: the `Err` side is thrown in JavaScript.
pub type JsResult<T> = Result<T, JsValue>;

/// A JavaScript `Error` whose `message` is the error's `Display` and whose `code` property is
/// [`Error::code`] (a stable snake_case string such as `"unknown_status"`).
pub fn to_js(err: &Error) -> JsValue {
    let js = js_sys::Error::new(&err.to_string());
    // Reflect.set on a fresh Error object cannot fail; if it ever did, the message still stands.
    let _ = js_sys::Reflect::set(
        &js,
        &JsValue::from_str("code"),
        &JsValue::from_str(err.code()),
    );
    js.into()
}

/// Maps a core result into an export result (`.map_err(to_js)` with the borrow done for you).
pub fn js<T>(result: Result<T, Error>) -> JsResult<T> {
    result.map_err(|e| to_js(&e))
}
