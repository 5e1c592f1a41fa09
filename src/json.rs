//! [`Json`]: a JSON value a peer sent that the core carries without reading it (a tool
//! result, an error's data, an input request or answer, the server's `requestState`).

use alloc::string::String;
use alloc::sync::Arc;
use core::fmt;
use core::ops::Deref;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

/// A JSON value kept exactly as it arrived and handed back unread: a result, an error body, an
/// input request or answer.
///
/// It reads as the [`Value`] it holds (`Deref`), compares and (de)serializes as that value, and
/// is shared rather than copied: a tracker keeps a job's result for its record and hands the
/// same result out in `Settled`, and the clone costs a reference count, not a copy of the tree.
///
/// ```
/// use longcall::Json;
/// use serde_json::json;
///
/// let result = Json::from(json!({"url": "https://cdn.example/v.mp4"}));
/// assert_eq!(result["url"], "https://cdn.example/v.mp4");
/// assert_eq!(result, json!({"url": "https://cdn.example/v.mp4"}));
/// assert_eq!(result.to_string(), r#"{"url":"https://cdn.example/v.mp4"}"#);
/// assert_eq!(serde_json::to_string(&result)?, r#"{"url":"https://cdn.example/v.mp4"}"#);
/// # Ok::<(), serde_json::Error>(())
/// ```
// Held behind a trait object rather than as `Arc<Value>`: the JSON tree's drop and clone code
// is then reached only through a value wrapped a `Value`, so a build that never reads JSON
// (the numbers-only WebAssembly module, `longcall/lite`) links none of it.
#[derive(Clone)]
pub struct Json(Arc<dyn Held>);

trait Held: Send + Sync {
    fn value(&self) -> &Value;
}

impl Held for Value {
    fn value(&self) -> &Value {
        self
    }
}

impl Json {
    /// Wraps `value`.
    #[must_use]
    pub fn new(value: Value) -> Json {
        Json(Arc::new(value))
    }

    /// The value, as it arrived.
    #[must_use]
    pub fn as_value(&self) -> &Value {
        self.0.value()
    }
}

impl From<Value> for Json {
    fn from(value: Value) -> Json {
        Json::new(value)
    }
}

impl Deref for Json {
    type Target = Value;
    fn deref(&self) -> &Value {
        self.as_value()
    }
}

impl fmt::Debug for Json {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_value(), f)
    }
}

/// The value as compact JSON text, as `serde_json` writes it.
impl fmt::Display for Json {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.as_value(), f)
    }
}

impl PartialEq for Json {
    fn eq(&self, other: &Json) -> bool {
        self.as_value() == other.as_value()
    }
}

impl Eq for Json {}

impl PartialEq<Value> for Json {
    fn eq(&self, other: &Value) -> bool {
        self.as_value() == other
    }
}

impl Serialize for Json {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.as_value().serialize(s)
    }
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Json, D::Error> {
        Value::deserialize(d).map(Json::new)
    }
}

/// `value` as JSON text, by serde_json's byte writer: the one every other JSON text of the
/// crate is written by. `Value`'s `Display` writes the same text through a writer of its own,
/// which would compile a second copy of the `Value`, string and number writers into the
/// WebAssembly builds.
///
/// ```
/// let v = serde_json::json!({"say": "caf\u{e9} \"ok\"", "n": [1, 2.5, null]});
/// assert_eq!(longcall::json_text(&v), v.to_string());
/// ```
#[must_use]
pub fn text(value: &Value) -> String {
    // Writing a `Value` cannot fail: its map keys are strings.
    serde_json::to_string(value).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_clone_shares_the_value() {
        let a = Json::from(json!({"big": [1, 2, 3]}));
        let b = a.clone();
        assert!(core::ptr::eq(a.as_value(), b.as_value()));
        assert_eq!(a, b);
    }

    #[test]
    fn reads_writes_and_compares_as_its_value() {
        let text = r#"{"a":[1,{"b":null}],"c":"d"}"#;
        let p: Json = serde_json::from_str(text).unwrap();
        assert_eq!(serde_json::to_string(&p).unwrap(), text);
        assert_eq!(p, json!({"a": [1, {"b": null}], "c": "d"}));
        assert_ne!(p, Json::from(json!({"c": "d"})));
        assert_eq!(p["c"], "d");
        assert_eq!(
            alloc::format!("{p:?}"),
            alloc::format!("{:?}", p.as_value())
        );
    }
}
