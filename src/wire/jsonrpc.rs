//! The JSON-RPC 2.0 envelope: requests, notifications, results and errors.
//!
//! [`Message::parse`] reads one message (under [`Limits`]) and [`Message::to_value`] writes it
//! back; for every message in the recorded transcripts the two round-trip to the same JSON value
//! (envelope members other than `jsonrpc`, `id`, `method`, `params`, `result`, `error` are not
//! kept: JSON-RPC 2.0 has none).

use alloc::string::String;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::limits::{check, malformed, Limits};
use crate::error::Error;
use crate::view::RpcError;
use crate::Json;

/// A JSON-RPC request id: a number or a string (or `null` in an error answer to an unreadable
/// request). Ids are echoed, never interpreted.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Id {
    /// An integer id.
    Number(i64),
    /// A string id.
    String(String),
    /// `null` (only in error answers).
    Null,
}

impl From<i64> for Id {
    fn from(n: i64) -> Id {
        Id::Number(n)
    }
}

impl From<&str> for Id {
    fn from(s: &str) -> Id {
        Id::String(s.into())
    }
}

impl Id {
    pub(crate) fn from_value(v: &Value) -> Result<Id, Error> {
        match v {
            Value::Null => Ok(Id::Null),
            Value::String(s) => Ok(Id::String(s.clone())),
            Value::Number(n) => n.as_i64().map(Id::Number).ok_or_else(|| Error::Malformed {
                what: "JSON-RPC id",
                reason: "a number id must be an integer that fits 64 bits".into(),
            }),
            _ => Err(Error::Malformed {
                what: "JSON-RPC id",
                reason: "must be a number or a string".into(),
            }),
        }
    }

    /// The id as a JSON value.
    #[must_use]
    pub fn to_value(&self) -> Value {
        match self {
            Id::Number(n) => Value::from(*n),
            Id::String(s) => Value::String(s.clone()),
            Id::Null => Value::Null,
        }
    }
}

/// One JSON-RPC 2.0 message.
///
/// ```
/// use longcall::wire::{Message, Id};
/// let m = Message::parse(br#"{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete"}}"#).unwrap();
/// assert!(matches!(&m, Message::Response { id: Id::Number(7), .. }));
/// assert_eq!(m.to_value()["result"]["resultType"], "complete");
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum Message {
    /// A request, answered by a response with the same id.
    Request {
        /// The id.
        id: Id,
        /// The method, e.g. `tasks/get`.
        method: String,
        /// The params (absent is `None`).
        params: Option<Value>,
    },
    /// A notification: no id, no answer.
    Notification {
        /// The method, e.g. `notifications/tasks`.
        method: String,
        /// The params (absent is `None`).
        params: Option<Value>,
    },
    /// A successful response.
    Response {
        /// The id of the request it answers.
        id: Id,
        /// The result.
        result: Value,
    },
    /// An error response.
    Error {
        /// The id of the request it answers (`Null` when the request could not be read).
        id: Id,
        /// The error.
        error: RpcError,
    },
}

const WHAT: &str = "JSON-RPC message";

fn bad(reason: &str) -> Error {
    Error::Malformed {
        what: WHAT,
        reason: reason.into(),
    }
}

impl Message {
    /// Reads one message with [`Limits::DEFAULT`].
    pub fn parse<B: AsRef<[u8]> + ?Sized>(input: &B) -> Result<Message, Error> {
        Message::parse_with(input, &Limits::DEFAULT)
    }

    /// Reads one message under `limits`.
    pub fn parse_with<B: AsRef<[u8]> + ?Sized>(
        input: &B,
        limits: &Limits,
    ) -> Result<Message, Error> {
        let bytes = input.as_ref();
        check(bytes, limits)?;
        let value: Value = serde_json::from_slice(bytes).map_err(|e| malformed(WHAT, &e))?;
        Message::from_value(value)
    }

    /// Reads a message from an already parsed JSON value.
    pub fn from_value(value: Value) -> Result<Message, Error> {
        let Value::Object(mut obj) = value else {
            return Err(bad("not a JSON object (batches are not supported)"));
        };
        match obj.get("jsonrpc") {
            Some(Value::String(v)) if v == "2.0" => {}
            _ => return Err(bad("missing \"jsonrpc\": \"2.0\"")),
        }
        let id = obj.get("id").map(Id::from_value).transpose()?;
        let params = obj.remove("params");
        if let Some(p) = &params {
            if !(p.is_object() || p.is_array()) {
                return Err(bad("params must be an object or an array"));
            }
        }
        if let Some(method) = obj.remove("method") {
            let Value::String(method) = method else {
                return Err(bad("method must be a string"));
            };
            return Ok(match id {
                Some(Id::Null) => return Err(bad("a request id must not be null")),
                Some(id) => Message::Request { id, method, params },
                None => Message::Notification { method, params },
            });
        }
        let id = id.ok_or_else(|| bad("neither a method nor an id"))?;
        match (obj.remove("result"), obj.remove("error")) {
            (Some(result), None) => {
                if id == Id::Null {
                    return Err(bad("a result must answer a non-null id"));
                }
                Ok(Message::Response { id, result })
            }
            (None, Some(error)) => {
                let error = rpc_error_from_value(error)?;
                Ok(Message::Error { id, error })
            }
            (Some(_), Some(_)) => Err(bad("both result and error")),
            (None, None) => Err(bad("a response needs result or error")),
        }
    }

    /// Writes the message as a JSON value (`jsonrpc: "2.0"` included).
    #[must_use]
    pub fn to_value(&self) -> Value {
        let mut obj = Map::new();
        obj.insert("jsonrpc".into(), Value::from("2.0"));
        match self {
            Message::Request { id, method, params } => {
                obj.insert("id".into(), id.to_value());
                obj.insert("method".into(), Value::String(method.clone()));
                if let Some(p) = params {
                    obj.insert("params".into(), p.clone());
                }
            }
            Message::Notification { method, params } => {
                obj.insert("method".into(), Value::String(method.clone()));
                if let Some(p) = params {
                    obj.insert("params".into(), p.clone());
                }
            }
            Message::Response { id, result } => {
                obj.insert("id".into(), id.to_value());
                obj.insert("result".into(), result.clone());
            }
            Message::Error { id, error } => {
                obj.insert("id".into(), id.to_value());
                obj.insert("error".into(), rpc_error_to_value(error));
            }
        }
        Value::Object(obj)
    }

    /// The method of a request or notification.
    #[must_use]
    pub fn method(&self) -> Option<&str> {
        match self {
            Message::Request { method, .. } | Message::Notification { method, .. } => Some(method),
            _ => None,
        }
    }

    /// The id of a request or response.
    #[must_use]
    pub fn id(&self) -> Option<&Id> {
        match self {
            Message::Request { id, .. }
            | Message::Response { id, .. }
            | Message::Error { id, .. } => Some(id),
            Message::Notification { .. } => None,
        }
    }
}

/// Reads a JSON-RPC error object `{code, message, data?}`; the code must be an integer.
pub fn rpc_error_from_value(value: Value) -> Result<RpcError, Error> {
    let Value::Object(mut e) = value else {
        return Err(bad("error must be an object"));
    };
    let code = e
        .get("code")
        .and_then(Value::as_i64)
        .ok_or_else(|| bad("error.code must be an integer"))?;
    let message = match e.remove("message") {
        Some(Value::String(s)) => s,
        None => String::new(),
        Some(_) => return Err(bad("error.message must be a string")),
    };
    Ok(RpcError {
        code,
        message,
        data: e.remove("data").map(Json::from),
    })
}

/// Writes a JSON-RPC error object.
#[must_use]
pub fn rpc_error_to_value(error: &RpcError) -> Value {
    let mut e = Map::new();
    e.insert("code".into(), Value::from(error.code));
    e.insert("message".into(), Value::String(error.message.clone()));
    if let Some(d) = &error.data {
        e.insert("data".into(), d.as_value().clone());
    }
    Value::Object(e)
}

/// What a response said: a result of type `T`, or a JSON-RPC error.
#[derive(Clone, Debug, PartialEq)]
pub enum Answer<T> {
    /// A result.
    Result(T),
    /// A JSON-RPC error.
    Error(RpcError),
}

/// The envelope of a response, read straight from bytes into a typed result.
#[derive(Deserialize)]
struct RawResponse<'a, T> {
    #[serde(borrow)]
    jsonrpc: Option<super::task::Str<'a>>,
    #[serde(default)]
    id: Option<Value>,
    result: Option<T>,
    error: Option<RpcError>,
}

/// Reads a response envelope straight into `T` (no intermediate `Value` for the result).
pub(crate) fn read_response<'a, T: Deserialize<'a>>(
    bytes: &'a [u8],
    limits: &Limits,
    what: &'static str,
) -> Result<(Id, Answer<T>), Error> {
    check(bytes, limits)?;
    let raw: RawResponse<'a, T> = serde_json::from_slice(bytes).map_err(|e| malformed(what, &e))?;
    if raw.jsonrpc.as_deref() != Some("2.0") {
        return Err(bad("missing \"jsonrpc\": \"2.0\""));
    }
    let id = raw
        .id
        .as_ref()
        .map(Id::from_value)
        .transpose()?
        .ok_or_else(|| bad("a response needs an id"))?;
    match (raw.result, raw.error) {
        (Some(r), None) => Ok((id, Answer::Result(r))),
        (None, Some(e)) => Ok((id, Answer::Error(e))),
        (Some(_), Some(_)) => Err(bad("both result and error")),
        (None, None) => Err(bad("a response needs result or error")),
    }
}
