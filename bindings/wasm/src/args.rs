//! Typed conversion of JavaScript arguments. Nothing here panics, whatever the value.

#[allow(unused_imports)]
use crate::prelude::*;

use longcall::{Error, Model, Status};
use wasm_bindgen::{JsCast, JsValue};

/// The sentinel that numbers-only exports return for input they cannot read.
pub const BAD: u8 = 255;

/// How much of a name argument (a model, a status, a verdict) is copied into the module: the
/// longest real name is far shorter, and error messages quote less than this, so a 50 MB string
/// passed by mistake is never copied in (the module's memory does not shrink again).
pub const NAME_UNITS: u32 = 80;

/// A name argument as a Rust string, at most [`NAME_UNITS`] UTF-16 units of it (a longer one can
/// be no name, and what an error quotes of it is shorter than that).
pub fn name(value: &JsValue) -> Option<String> {
    let s = value.dyn_ref::<js_sys::JsString>()?;
    Some(if s.length() > NAME_UNITS {
        String::from(s.slice(0, NAME_UNITS))
    } else {
        String::from(s)
    })
}

/// A model name (`"task-2026"`, `"task-2025"`, `"job"`) from any JavaScript value.
pub fn model(value: &JsValue) -> Result<Model, Error> {
    match name(value) {
        Some(s) => s.parse(),
        None => Err(not_a_string("model", value)),
    }
}

/// A wire status of `model` from any JavaScript value; `field` names the argument in errors.
pub fn status(model: Model, value: &JsValue, field: &str) -> Result<Status, Error> {
    match name(value) {
        Some(s) => Status::parse(model, &s),
        None => Err(not_a_string(field, value)),
    }
}

/// A cancel verdict name (`"too_late"`, ...) from any JavaScript value.
pub fn verdict(value: &JsValue) -> Result<longcall::cancel::CancelVerdict, Error> {
    let Some(s) = name(value) else {
        return Err(not_a_string("verdict", value));
    };
    // The names are the exported table's (listing them here would cost the small module 0.1 KB).
    longcall::cancel::CancelVerdict::parse(&s).ok_or_else(|| {
        Error::invalid_input(
            "verdict",
            "not a cancel verdict name (CANCEL_VERDICTS lists them)",
        )
    })
}

/// A small numeric code from a JavaScript number: `None` for NaN, infinities, fractions,
/// negatives and anything above 255.
pub fn code(value: f64) -> Option<u8> {
    // `as` saturates (NaN -> 0); the round trip rejects everything that was not exact.
    let n = value as u8;
    (f64::from(n) == value).then_some(n)
}

/// `invalid_input` for `field`, which must be a string and is `value`, said as it is (`object`).
pub fn not_a_string(field: &str, value: &JsValue) -> Error {
    Error::InvalidInput {
        field: field.into(),
        reason: String::from("expected a string, got ") + &describe(value),
    }
}

/// `typeof value`, with `null` and arrays told apart from objects.
pub fn describe(value: &JsValue) -> String {
    if value.is_null() {
        "null".into()
    } else if value.is_array() {
        "array".into()
    } else {
        value
            .js_typeof()
            .as_string()
            .unwrap_or_else(|| "unknown".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_exact_small_integers() {
        assert_eq!(code(0.0), Some(0));
        assert_eq!(code(-0.0), Some(0));
        assert_eq!(code(9.0), Some(9));
        assert_eq!(code(255.0), Some(255));
        for bad in [
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            -1.0,
            256.0,
            1.5,
            1e300,
            -1e-300,
        ] {
            assert_eq!(code(bad), None, "{bad}");
        }
    }
}
