//! The tracker configuration `{poll?: {initialMs?, multiplierPercent?, capMs?, jitter?,
//! minIntervalMs?, maxPolls?, followServerInterval?}, seed?, deadlineMs?}` read field by field, so the small build needs
//! no JSON deserializer. JavaScript spells the keys in camelCase, as the MCP wire does; the
//! values are the core's `TrackerConfig`. A key not listed in [`CONFIG_KEYS`] or [`POLL_KEYS`]
//! is `invalid_config` naming the key (a misspelt key must not fall back to a default without a
//! word); a known key of the wrong type is `malformed`; values the policy refuses are
//! `invalid_config` (from `PollPolicy::validate`).

#[allow(unused_imports)]
use crate::prelude::*;

use longcall::poll::{Jitter, PollPolicy};
use longcall::tracker::TrackerConfig;
use longcall::Error;
use wasm_bindgen::{JsCast, JsValue};

use crate::args::describe;
use crate::json::num;

/// The keys of the configuration object.
pub const CONFIG_KEYS: &[&str] = &["poll", "seed", "deadlineMs"];
/// The keys of its `poll` object.
pub const POLL_KEYS: &[&str] = &[
    "initialMs",
    "multiplierPercent",
    "capMs",
    "jitter",
    "minIntervalMs",
    "maxPolls",
    "followServerInterval",
];

/// `invalid_config` for the first key of `obj` not in `known` (`path` prefixes its name).
pub fn unknown_keys(obj: &JsValue, known: &[&str], path: &str) -> Result<(), Error> {
    own_keys(obj, known, path).map(drop)
}

/// An object's own keys as JavaScript strings beside their names: when they are all its
/// properties a read can see (a plain object with only enumerable own properties), a key not
/// among them is absent, so reading the object costs one call per key it has instead of one per
/// key it might have (and no JavaScript string is made for a key name).
struct Keys(Option<Vec<(String, JsValue)>>);

/// [`unknown_keys`], keeping the keys for [`field`] when they are all there is to read.
fn own_keys(obj: &JsValue, known: &[&str], path: &str) -> Result<Keys, Error> {
    // `is_object`, not `dyn_ref::<Object>` (an `instanceof` test): an object made with
    // `Object.create(null)` is not an instance of `Object`, and its keys still count.
    if !obj.is_object() {
        return Ok(Keys(None));
    }
    let o = obj.unchecked_ref::<js_sys::Object>();
    let keys = js_sys::Object::keys(o);
    let mut seen = Vec::new();
    for key in keys.iter() {
        let name = crate::args::name(&key).unwrap_or_default();
        if !known.contains(&name.as_str()) {
            let mut field = String::from(path);
            field.push_str(&name);
            let mut reason = String::from("unknown key; expected one of");
            for (i, k) in known.iter().enumerate() {
                reason.push_str(if i == 0 { " " } else { ", " });
                reason.push_str(k);
            }
            return Err(Error::InvalidConfig { field, reason });
        }
        seen.push((name, key));
    }
    // A config whose prototype is `Object.prototype` inherits none of the known keys.
    let plain = js_sys::Object::get_prototype_of(obj)
        == js_sys::Object::get_prototype_of(&js_sys::Object::new())
        && js_sys::Object::get_own_property_names(o).length() == keys.length();
    Ok(Keys(plain.then_some(seen)))
}

fn field(obj: &JsValue, keys: &Keys, name: &str) -> Result<JsValue, Error> {
    let got = match &keys.0 {
        Some(list) => match list.iter().find(|(n, _)| n == name) {
            Some((_, key)) => js_sys::Reflect::get(obj, key),
            None => return Ok(JsValue::UNDEFINED),
        },
        None => js_sys::Reflect::get(obj, &JsValue::from_str(name)),
    };
    got.map_err(|_| malformed(name, "cannot be read"))
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

fn uint(obj: &JsValue, keys: &Keys, name: &str) -> Result<Option<u64>, Error> {
    let v = field(obj, keys, name)?;
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

fn boolean(obj: &JsValue, keys: &Keys, name: &str) -> Result<Option<bool>, Error> {
    let v = field(obj, keys, name)?;
    if absent(&v) {
        return Ok(None);
    }
    v.as_bool()
        .map(Some)
        .ok_or_else(|| malformed(name, &format!("expected a boolean, got {}", describe(&v))))
}

fn jitter(obj: &JsValue, keys: &Keys) -> Result<Option<Jitter>, Error> {
    let v = field(obj, keys, "jitter")?;
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
    let k = own_keys(v, POLL_KEYS, "poll.")?;
    if let Some(n) = uint(v, &k, "initialMs")? {
        p.initial_ms = n;
    }
    if let Some(n) = uint(v, &k, "multiplierPercent")? {
        p.multiplier_percent =
            u32::try_from(n).map_err(|_| malformed("multiplierPercent", "too large"))?;
    }
    if let Some(n) = uint(v, &k, "capMs")? {
        p.cap_ms = n;
    }
    if let Some(j) = jitter(v, &k)? {
        p.jitter = j;
    }
    if let Some(n) = uint(v, &k, "minIntervalMs")? {
        p.min_interval_ms = n;
    }
    if let Some(n) = uint(v, &k, "maxPolls")? {
        p.max_polls = Some(u32::try_from(n).map_err(|_| malformed("maxPolls", "too large"))?);
    }
    if let Some(b) = boolean(v, &k, "followServerInterval")? {
        p.follow_server_interval = b;
    }
    Ok(p)
}

/// Reads a `TrackerConfig`; `undefined`/`null` is the default.
pub fn tracker_config(v: &JsValue) -> Result<TrackerConfig, Error> {
    if absent(v) {
        return Ok(TrackerConfig::default());
    }
    object(v, "config")?;
    let k = own_keys(v, CONFIG_KEYS, "")?;
    Ok(TrackerConfig {
        poll: poll_policy(&field(v, &k, "poll")?)?,
        seed: uint(v, &k, "seed")?.unwrap_or(0),
        deadline_ms: uint(v, &k, "deadlineMs")?,
    })
}
