//! The tracker configuration `{poll?: {...}, seed?, deadline_ms?}` read field by field, so the
//! small build needs no JSON deserializer. The same answers as the core's serde reading: unknown
//! fields are ignored; a known field of the wrong type is `malformed`; values the policy refuses
//! are `invalid_config` (from `PollPolicy::validate`).

use longcall::poll::{Jitter, PollPolicy};
use longcall::tracker::TrackerConfig;
use longcall::Error;
use wasm_bindgen::JsValue;

use crate::args::describe;
use crate::json::num;

fn field(obj: &JsValue, name: &str) -> Result<JsValue, Error> {
    js_sys::Reflect::get(obj, &JsValue::from_str(name))
        .map_err(|_| malformed(name, "cannot be read"))
}

fn malformed(name: &str, reason: &str) -> Error {
    Error::Malformed {
        what: "config",
        reason: format!("{name}: {reason}"),
    }
}

fn absent(v: &JsValue) -> bool {
    v.is_undefined() || v.is_null()
}

fn object(v: &JsValue, name: &str) -> Result<(), Error> {
    if v.is_object() && !js_sys::Array::is_array(v) && !v.is_function() {
        Ok(())
    } else {
        Err(malformed(
            name,
            &format!("expected an object, got {}", describe(v)),
        ))
    }
}

fn uint(obj: &JsValue, name: &str) -> Result<Option<u64>, Error> {
    let v = field(obj, name)?;
    if absent(&v) {
        return Ok(None);
    }
    let Some(n) = v.as_f64() else {
        return Err(malformed(
            name,
            &format!("expected a number, got {}", describe(&v)),
        ));
    };
    if n > crate::json::MAX_SAFE && n.is_finite() {
        // A whole number a JavaScript caller cannot hold exactly: out of range, not malformed.
        return Err(Error::invalid_config(name, "must be at most 2^53-1"));
    }
    // (No `{n}` in the message: formatting a float would link float printing into the small
    // build, about 20 KB.)
    num(n)
        .map(Some)
        .ok_or_else(|| malformed(name, "expected an integer from 0 to 2^53-1"))
}

fn jitter(obj: &JsValue) -> Result<Option<Jitter>, Error> {
    let v = field(obj, "jitter")?;
    if absent(&v) {
        return Ok(None);
    }
    match v.as_string().as_deref() {
        Some("none") => Ok(Some(Jitter::None)),
        Some("full") => Ok(Some(Jitter::Full)),
        Some("equal") => Ok(Some(Jitter::Equal)),
        Some("decorrelated") => Ok(Some(Jitter::Decorrelated)),
        _ => Err(malformed(
            "jitter",
            "expected \"none\", \"full\", \"equal\" or \"decorrelated\"",
        )),
    }
}

fn poll_policy(v: &JsValue) -> Result<PollPolicy, Error> {
    let mut p = PollPolicy::default();
    if absent(v) {
        return Ok(p);
    }
    object(v, "poll")?;
    if let Some(n) = uint(v, "initial_ms")? {
        p.initial_ms = n;
    }
    if let Some(n) = uint(v, "multiplier_percent")? {
        p.multiplier_percent =
            u32::try_from(n).map_err(|_| malformed("multiplier_percent", "too large"))?;
    }
    if let Some(n) = uint(v, "cap_ms")? {
        p.cap_ms = n;
    }
    if let Some(j) = jitter(v)? {
        p.jitter = j;
    }
    if let Some(n) = uint(v, "min_interval_ms")? {
        p.min_interval_ms = n;
    }
    if let Some(n) = uint(v, "max_polls")? {
        p.max_polls = Some(u32::try_from(n).map_err(|_| malformed("max_polls", "too large"))?);
    }
    Ok(p)
}

/// Reads a `TrackerConfig`; `undefined`/`null` is the default.
pub fn tracker_config(v: &JsValue) -> Result<TrackerConfig, Error> {
    if absent(v) {
        return Ok(TrackerConfig::default());
    }
    object(v, "config")?;
    Ok(TrackerConfig {
        poll: poll_policy(&field(v, "poll")?)?,
        seed: uint(v, "seed")?.unwrap_or(0),
        deadline_ms: uint(v, "deadline_ms")?,
    })
}
