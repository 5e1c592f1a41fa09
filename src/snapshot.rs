//! Snapshots (S-4): every stateful value saves to a versioned JSON form holding absolute times
//! (never relative timers) and restores exactly. An unknown version is a typed error.
//!
//! ```json
//! {"kind":"poll_schedule","v":1,"state":{ ... }}
//! ```

use alloc::string::{String, ToString};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{Error, Quoted};

/// The snapshot version this build writes and reads.
pub const VERSION: u32 = 1;

/// Largest snapshot text accepted by [`restore`].
pub const MAX_SNAPSHOT_BYTES: usize = 4 << 20;

/// A stateful value that can be saved and restored.
pub trait Snapshot: Serialize + DeserializeOwned {
    /// The kind written in the envelope; restoring another kind is an error.
    const KIND: &'static str;
}

#[derive(Serialize)]
struct Envelope<'a, T> {
    kind: &'a str,
    v: u32,
    state: &'a T,
}

/// The envelope's head. (The derived reader is the tests' reference for [`header`].)
#[cfg_attr(test, derive(Deserialize, Debug))]
struct Header {
    kind: String,
    v: u64,
}

/// Reads the head as serde's derived reader does (a bad member before a missing one, in the
/// map's order, in serde's words), without compiling serde's struct reader for it.
fn header(value: &Value) -> Result<Header, serde_json::Error> {
    use serde::de::Error as _;
    let Some(members) = value.as_object() else {
        return Err(serde_json::Error::invalid_type(
            crate::tagged::unexpected(value),
            &"struct Header",
        ));
    };
    let kind = members.get("kind").map(String::deserialize).transpose()?;
    let v = members.get("v").map(u64::deserialize).transpose()?;
    Ok(Header {
        kind: kind.ok_or_else(|| serde_json::Error::missing_field("kind"))?,
        v: v.ok_or_else(|| serde_json::Error::missing_field("v"))?,
    })
}

/// Saves `value` as a versioned snapshot.
pub fn save<T: Snapshot>(value: &T) -> Result<String, Error> {
    serde_json::to_string(&Envelope {
        kind: T::KIND,
        v: VERSION,
        state: value,
    })
    .map_err(|e| Error::SnapshotInvalid {
        reason: e.to_string(),
    })
}

/// Restores a value saved by [`save`].
///
/// Errors: [`Error::TooLarge`] over [`MAX_SNAPSHOT_BYTES`], [`Error::SnapshotVersion`] for another
/// version, [`Error::SnapshotInvalid`] for another kind or a body that does not fit.
pub fn restore<T: Snapshot>(text: &str) -> Result<T, Error> {
    T::deserialize(state_of(text, T::KIND)?).map_err(invalid)
}

fn invalid(e: serde_json::Error) -> Error {
    Error::SnapshotInvalid {
        reason: e.to_string(),
    }
}

/// The checked envelope of [`restore`] and the saved state in it: compiled once, not once per
/// saved type.
fn state_of(text: &str, kind: &str) -> Result<Value, Error> {
    if text.len() > MAX_SNAPSHOT_BYTES {
        return Err(Error::TooLarge {
            what: "snapshot",
            limit: MAX_SNAPSHOT_BYTES,
            actual: text.len(),
        });
    }
    // Read once into a `Value`, then the header and the body from it: each saved type then has
    // one deserializer (the `Value` one) instead of a text reader's copy as well, which is most
    // of the WebAssembly module's size; restoring is not a hot path.
    let not_snapshot = |e: serde_json::Error| Error::SnapshotInvalid {
        reason: alloc::format!("not a longcall snapshot: {e}"),
    };
    // As bytes: the wire's reader, so WebAssembly builds carry one serde_json reader, not two.
    let value: Value = serde_json::from_slice(text.as_bytes()).map_err(not_snapshot)?;
    let header = header(&value).map_err(not_snapshot)?;
    if header.kind != kind {
        return Err(Error::SnapshotInvalid {
            reason: alloc::format!(
                "expected a {} snapshot, found {}",
                kind,
                Quoted(&header.kind)
            ),
        });
    }
    if header.v != u64::from(VERSION) {
        return Err(Error::SnapshotVersion {
            kind: header.kind,
            found: header.v,
            supported: VERSION,
        });
    }
    // The head was read from an object, so `state` is absent only when missing.
    let state = match value {
        Value::Object(mut members) => members.remove("state"),
        _ => None,
    };
    state.ok_or_else(|| invalid(serde::de::Error::missing_field("state")))
}

#[cfg(test)]
mod tests {
    use alloc::format;

    use serde_json::json;

    use super::*;

    /// The head is read as the derived reader reads it: the same values, the same first error.
    #[test]
    fn headers_read_as_derived() {
        for v in [
            json!({"kind": "tracker", "v": 1, "state": {}}),
            json!({"kind": "tracker"}),
            json!({"v": 1}),
            json!({}),
            json!({"v": "1"}),
            json!({"kind": 1, "v": "x"}),
            json!({"kind": "k", "v": -1}),
            json!({"kind": null, "v": 1.5}),
            json!("tracker"),
            json!(null),
            json!(7),
        ] {
            let show = |r: Result<Header, serde_json::Error>| match r {
                Ok(h) => format!("{h:?}"),
                Err(e) => e.to_string(),
            };
            assert_eq!(show(header(&v)), show(Header::deserialize(&v)), "{v}");
        }
    }

    #[test]
    fn a_missing_state_is_named() {
        let e = restore::<crate::poll::PollSchedule>(r#"{"kind":"poll_schedule","v":1}"#);
        assert_eq!(
            e.unwrap_err().to_string(),
            format!(
                "{}",
                Error::SnapshotInvalid {
                    reason: "missing field `state`".into()
                }
            )
        );
    }
}
