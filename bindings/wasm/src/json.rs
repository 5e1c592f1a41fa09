//! Structured values across the boundary, both ways through JSON text.
//!
//! * **In:** `JSON.stringify` in the engine (it throws, and we catch, on cyclic objects, BigInts
//!   and nesting the engine cannot walk), then `serde_json` (recursion limit 128) into the core's
//!   types. A cyclic or absurdly deep value becomes an `invalid_input` error, never a stack
//!   overflow inside the module.
//! * **Out:** `serde_json` text, then `JSON.parse`: a JavaScript caller gets exactly what parsing
//!   the native run's JSON gives (times are plain numbers).
//!
//! The core already links `serde_json` (snapshots, `Value` payloads), so this route adds almost
//! nothing to the module, where `serde-wasm-bindgen` measured several KB gzip more.

#[allow(unused_imports)]
use crate::prelude::*;

use longcall::Error;
#[cfg(feature = "std")]
use serde::de::DeserializeOwned;
use serde::Serialize;
#[cfg(feature = "full")]
use serde::{Deserialize, Deserializer};
use wasm_bindgen::{JsCast, JsValue};

use crate::args::describe;
use crate::errors::JsResult;

/// Largest JSON text accepted from JavaScript for one structured argument (UTF-16 units).
pub const MAX_JSON_UNITS: u32 = 4 << 20;

/// The largest integer a JavaScript number holds exactly (`Number.MAX_SAFE_INTEGER`).
pub const MAX_SAFE: f64 = 9_007_199_254_740_991.0;

/// Reads a structured argument; `field` names it in errors.
#[cfg(feature = "std")]
pub fn from_js<T: DeserializeOwned>(value: &JsValue, field: &str) -> Result<T, Error> {
    let text = stringify(value, field)?;
    parse(&text, field)
}

/// Reads a JSON text argument (a JavaScript string), or the plain value given instead.
#[cfg(feature = "std")]
pub fn from_text_or_value<T: DeserializeOwned>(value: &JsValue, field: &str) -> Result<T, Error> {
    if value.is_string() {
        let text = bounded_string(value, field)?;
        parse(&text, field)
    } else {
        from_js(value, field)
    }
}

/// A JavaScript string argument, refused over [`MAX_JSON_UNITS`] before it is copied in.
pub fn bounded_string(value: &JsValue, field: &str) -> Result<String, Error> {
    let Some(s) = value.dyn_ref::<js_sys::JsString>() else {
        return Err(Error::invalid_input(
            field,
            &(String::from("expected a string, got ") + &describe(value)),
        ));
    };
    too_large(s)?;
    Ok(String::from(s))
}

fn too_large(s: &js_sys::JsString) -> Result<(), Error> {
    if s.length() > MAX_JSON_UNITS {
        return Err(Error::TooLarge {
            what: "argument",
            limit: MAX_JSON_UNITS as usize,
            actual: s.length() as usize,
        });
    }
    Ok(())
}

/// A structured argument as JSON text (`JSON.stringify` in the engine, size-checked).
#[cfg(feature = "std")]
pub fn stringify(value: &JsValue, field: &str) -> Result<String, Error> {
    if value.is_undefined() || value.is_function() || value.is_symbol() {
        return Err(Error::invalid_input(
            field,
            &format!("expected a JSON value, got {}", describe(value)),
        ));
    }
    match js_sys::JSON::stringify(value) {
        Ok(s) => {
            too_large(&s)?;
            Ok(String::from(s))
        }
        Err(e) => {
            let why = e
                .dyn_ref::<js_sys::Error>()
                .map(|e| String::from(e.message()))
                .unwrap_or_else(|| "not serializable".into());
            // Cyclic, BigInt or nested deeper than the engine walks: not JSON, so malformed, as
            // the native readers say of text they cannot read.
            Err(Error::Malformed {
                what: "argument",
                reason: format!("{field}: cannot be read as JSON ({})", short_reason(&why)),
            })
        }
    }
}

/// Reads JSON text into a core type. A value of the wrong shape is `malformed`, exactly as the
/// core's own readers (vectors, snapshots, wire) and the native bad-input catalogue say.
///
/// Text goes to a `serde_json::Value` first, then into `T`: every type is then read by the one
/// `Value` deserializer the module needs anyway (camelCase keys, snapshots), not by a text
/// reader's copy of it as well (measured in the repository's `docs/size.md`).
#[cfg(feature = "std")]
pub fn parse<T: DeserializeOwned>(text: &str, field: &str) -> Result<T, Error> {
    let bad = |e: serde_json::Error| Error::Malformed {
        what: "argument",
        reason: format!("{field}: {}", short_reason(&e.to_string())),
    };
    // Bytes, not `from_str`: every JSON text in the module is read by the one byte reader (the
    // wire's), not by a second copy of serde_json's reader for `&str` (2 KB gzip).
    let value: serde_json::Value = serde_json::from_slice(text.as_bytes()).map_err(bad)?;
    T::deserialize(value).map_err(bad)
}

/// Reads the members of an object argument for a struct that refuses unknown members, as serde's
/// derived reader with `deny_unknown_fields` does, messages included: in the map's order, an
/// unknown name is serde's `unknown_field` error naming `fields`, a member `take` refuses is its
/// error led by the member's name, and anything but an object is an invalid type naming `expecting`. `take` reads each
/// known member by its index in `fields`; the caller then names what is missing. (A derived
/// reader per struct also compiles an array form no caller writes.)
#[cfg(feature = "full")]
pub fn members<'de, D: serde::Deserializer<'de>>(
    d: D,
    expecting: &'static str,
    fields: &'static [&'static str],
    take: &mut dyn FnMut(usize, serde_json::Value) -> Result<(), serde_json::Error>,
) -> Result<(), D::Error> {
    use serde::de::Error as _;
    let value = serde_json::Value::deserialize(d)?;
    value
        .deserialize_struct(
            "",
            fields,
            Members {
                expecting,
                fields,
                take,
            },
        )
        .map_err(D::Error::custom)
}

#[cfg(feature = "full")]
struct Members<'t> {
    expecting: &'static str,
    fields: &'static [&'static str],
    take: &'t mut dyn FnMut(usize, serde_json::Value) -> Result<(), serde_json::Error>,
}

#[cfg(feature = "full")]
impl<'de> serde::de::Visitor<'de> for Members<'_> {
    type Value = ();

    fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.expecting)
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        use serde::de::Error as _;
        while let Some(key) = map.next_key::<String>()? {
            let Some(i) = self.fields.iter().position(|f| *f == key) else {
                return Err(A::Error::unknown_field(&key, self.fields));
            };
            let value = map.next_value::<serde_json::Value>()?;
            // Led by the member's name, as the core's readers do (`src/tagged.rs`).
            (self.take)(i, value).map_err(|e| A::Error::custom(format_args!("{key}: {e}")))?;
        }
        Ok(())
    }
}

/// Longest reason taken from a JSON reader's message (it may quote the input).
pub const MAX_REASON_CHARS: usize = 120;

/// A reader's message cut to [`MAX_REASON_CHARS`], so an input is never echoed whole (the
/// line/column position goes when the error is thrown: [`crate::errors::without_reader_noise`]).
pub fn short_reason(message: &str) -> String {
    match message.char_indices().nth(MAX_REASON_CHARS) {
        Some((cut, _)) => String::from(message.get(..cut).unwrap_or(message)) + "\u{2026}",
        None => message.into(),
    }
}

/// Serializes a core value to a plain JavaScript value.
pub fn to_js<T: Serialize + ?Sized>(value: &T) -> JsResult<JsValue> {
    let text = serde_json::to_string(value)
        .map_err(|e| crate::errors::to_js(&Error::invalid_input("output", &e.to_string())))?;
    js_sys::JSON::parse(&text)
}

/// A time (or other count) argument: a finite integer from 0 to `Number.MAX_SAFE_INTEGER`;
/// anything else (NaN, negative, fractional, huge, not a number) is `invalid_input`.
pub fn uint(value: &JsValue, field: &str) -> Result<u64, Error> {
    match value.as_f64() {
        Some(n) => num(n).ok_or_else(|| {
            Error::invalid_input(
                field,
                &(String::from("expected an integer from 0 to 2^53-1, got ") + &js_number(n)),
            )
        }),
        None => Err(Error::invalid_input(
            field,
            &(String::from("expected a number, got ") + &describe(value)),
        )),
    }
}

/// An optional [`uint`]: `undefined` and `null` are `None`.
pub fn opt_uint(value: &JsValue, field: &str) -> Result<Option<u64>, Error> {
    if value.is_undefined() || value.is_null() {
        Ok(None)
    } else {
        uint(value, field).map(Some)
    }
}

/// `n` for a message, spelled by JavaScript's own `String(n)` (`Infinity`, `1e+21`, where Rust
/// writes `inf` and 22 digits): the caller reads the number as JavaScript shows it to them.
pub fn js_number(n: f64) -> String {
    js_sys::Number::from(n)
        .to_string_with_radix(10)
        .map_or_else(|_| "a number".into(), String::from)
}

/// A number that is an exact integer from 0 to 2^53-1.
pub fn num(n: f64) -> Option<u64> {
    // The range check first (it rejects NaN, infinities and negatives), then the conversion,
    // which truncates: the round trip holds for whole numbers only (`f64::fract` needs std).
    if !(0.0..=MAX_SAFE).contains(&n) {
        return None;
    }
    let whole = n as u64;
    (whole as f64 == n).then_some(whole)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A struct read through [`members`] reads every input as its derived twin does (with
    /// `deny_unknown_fields`): the same values, the same first error, word for word, led by the
    /// refused member's name where a member's value was refused.
    #[cfg(feature = "full")]
    #[test]
    fn members_read_as_derived() {
        #[derive(Debug, Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Derived {
            ids: Vec<String>,
            #[serde(default)]
            wait: Option<u32>,
            #[serde(default)]
            flag: bool,
        }
        #[derive(Debug)]
        struct ByHand {
            ids: Vec<String>,
            wait: Option<u32>,
            flag: bool,
        }
        impl<'de> Deserialize<'de> for ByHand {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let (mut ids, mut wait, mut flag) = (None, None, false);
                members(
                    d,
                    "struct Derived",
                    &["ids", "wait", "flag"],
                    &mut |i, v| {
                        match i {
                            0 => ids = Some(Deserialize::deserialize(v)?),
                            1 => wait = Deserialize::deserialize(v)?,
                            _ => flag = Deserialize::deserialize(v)?,
                        }
                        Ok(())
                    },
                )?;
                Ok(ByHand {
                    ids: ids.ok_or_else(|| serde::de::Error::missing_field("ids"))?,
                    wait,
                    flag,
                })
            }
        }
        for text in [
            r#"{"ids":["a"],"wait":3,"flag":true}"#,
            r#"{"ids":[]}"#,
            r#"{"ids":["a"],"wait":null}"#,
            r#"{}"#,
            r#"{"wait":3}"#,
            r#"{"wait":"x"}"#,
            r#"{"ids":["a"],"zz":1}"#,
            r#"{"aa":1,"ids":5}"#,
            r#"{"ids":5,"zz":1}"#,
            r#"{"flag":1,"ids":["a"],"wait":-1}"#,
            r#"null"#,
            r#""x""#,
            r#"7"#,
        ] {
            let v: serde_json::Value = serde_json::from_str(text).unwrap();
            let hand = serde_json::from_value::<ByHand>(v.clone())
                .map(|d| format!("{:?}", (d.ids, d.wait, d.flag)))
                .map_err(|e| e.to_string());
            let derived = serde_json::from_value::<Derived>(v.clone())
                .map(|d| format!("{:?}", (d.ids, d.wait, d.flag)))
                .map_err(|e| e.to_string());
            let hand = hand.map_err(|m| match m.split_once(": ") {
                Some((member, rest)) if v.get(member).is_some() => rest.to_string(),
                _ => m,
            });
            assert_eq!(hand, derived, "{text}");
        }
        let refused =
            serde_json::from_value::<ByHand>(serde_json::json!({"ids": ["a"], "wait": "x"}));
        assert_eq!(
            refused.map(|_| ()).map_err(|e| e.to_string()),
            Err("wait: invalid type: string \"x\", expected u32".into())
        );
    }

    #[test]
    fn reasons_are_short() {
        let long = format!("unknown variant `{}`", "x".repeat(10_000));
        let r = short_reason(&long);
        assert_eq!(r.chars().count(), MAX_REASON_CHARS + 1);
        assert!(r.ends_with('\u{2026}'));
        assert_eq!(short_reason("short"), "short");
    }

    #[test]
    fn num_is_exact() {
        assert_eq!(num(0.0), Some(0));
        assert_eq!(num(-0.0), Some(0));
        assert_eq!(num(MAX_SAFE), Some(9_007_199_254_740_991));
        for bad in [
            f64::NAN,
            -1.0,
            0.5,
            4_503_599_627_370_495.5,
            MAX_SAFE + 2.0,
            f64::INFINITY,
            1e300,
        ] {
            assert_eq!(num(bad), None, "{bad}");
        }
    }
}
