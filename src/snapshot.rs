//! Snapshots (S-4): every stateful value saves to a versioned JSON form holding absolute times
//! (never relative timers) and restores exactly. An unknown version is a typed error.
//!
//! ```json
//! {"kind":"poll_schedule","v":1,"state":{ ... }}
//! ```

use alloc::string::{String, ToString};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

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

#[derive(Deserialize)]
struct Header {
    kind: String,
    v: u64,
}

#[derive(Deserialize)]
struct Body<T> {
    state: T,
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
    let value: serde_json::Value = serde_json::from_slice(text.as_bytes()).map_err(not_snapshot)?;
    let header = Header::deserialize(&value).map_err(not_snapshot)?;
    if header.kind != T::KIND {
        return Err(Error::SnapshotInvalid {
            reason: alloc::format!(
                "expected a {} snapshot, found {}",
                T::KIND,
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
    let body = Body::<T>::deserialize(value).map_err(|e| Error::SnapshotInvalid {
        reason: e.to_string(),
    })?;
    Ok(body.state)
}
