//! The tracker configuration `{poll?: {...}, seed?, deadline_ms?}` read field by field, so the
//! small build needs no JSON deserializer. Unknown fields are ignored (as serde would); a known
//! field of the wrong type or out of range is `invalid_config`.

use longcall::poll::{Jitter, PollPolicy};
use longcall::tracker::TrackerConfig;
use longcall::Error;
use wasm_bindgen::JsValue;

use crate::args::describe;
use crate::json::num;

fn field(obj: &JsValue, name: &str) -> Result<JsValue, Error> {
    js_sys::Reflect::get(obj, &JsValue::from_str(name))
        .map_err(|_| Error::invalid_config(name, "cannot be read"))
}

fn absent(v: &JsValue) -> bool {
    v.is_undefined() || v.is_null()
}

fn object(v: &JsValue, name: &str) -> Result<(), Error> {
    if v.is_object() && !js_sys::Array::is_array(v) && !v.is_function() {
        Ok(())
    } else {
        Err(Error::invalid_config(
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
    v.as_f64().and_then(num).map(Some).ok_or_else(|| {
        Error::invalid_config(
            name,
            &format!("expected an integer from 0 to 2^53-1, got {}", describe(&v)),
        )
    })
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
        _ => Err(Error::invalid_config(
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
        p.multiplier_percent = u32::try_from(n)
            .map_err(|_| Error::invalid_config("multiplier_percent", "too large"))?;
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
        p.max_polls =
            Some(u32::try_from(n).map_err(|_| Error::invalid_config("max_polls", "too large"))?);
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
