//! camelCase at the JavaScript boundary, as the MCP wire spells its keys (`taskId`,
//! `pollIntervalMs`, `isError`, `idempotencyKey`), while the core, its vectors and its snapshots
//! keep serde's snake_case. Keys are converted both ways by one rule; values that are the
//! caller's own JSON (a tool result, an elicitation request or answer, a job's result, error
//! data, a `jobs_wait` body that goes on the Sume wire as it is) are never touched. An input key
//! the core's type does not have is an error naming the key, never dropped in silence.

use longcall::Error;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{Map, Value};

/// Keys whose value is someone else's JSON, carried as it is (`(key, only when the object also
/// has this key)`): tool results' `value`, input requests and answers, a watched call's intent
/// (what is called, sent as it is), job results and errors
/// (a job view has an `id`) and a `settled` output's payload (beside its `outcome`), error `data`
/// and `details`, the update's `responses`, and the
/// `jobs_wait` bodies (a wave's `call`, a wait plan's `calls`).
const OPAQUE: &[(&str, Option<&str>)] = &[
    ("value", None),
    ("request", Some("key")),
    ("request", Some("model")),
    ("response", None),
    ("responses", None),
    ("data", None),
    ("details", None),
    ("calls", Some("duplicates")),
    ("call", Some("callId")),
    ("call", Some("call_id")),
    ("result", Some("id")),
    ("error", Some("id")),
    ("result", Some("outcome")),
    ("error", Some("outcome")),
];

fn opaque(key: &str, object: &Map<String, Value>) -> bool {
    OPAQUE
        .iter()
        .any(|(k, with)| *k == key && with.is_none_or(|w| object.contains_key(w)))
}

use crate::errors::camel;

/// `camelCase` to `snake_case`: each capital becomes `_` and its lower case. A key already in
/// snake_case comes back unchanged, so callers that must refuse that spelling compare
/// [`camel`] of the result with the key given.
pub fn snake(key: &str) -> String {
    let mut out = String::with_capacity(key.len() + 4);
    for c in key.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

fn convert(value: Value, key_of: fn(&str) -> String) -> Value {
    match value {
        Value::Object(map) => {
            let keep: Vec<bool> = map.keys().map(|k| opaque(k, &map)).collect();
            // Inserted one by one, not collected: `collect` sorts the pairs first, which would
            // compile a stable sort into the module (the last of equal keys wins either way).
            let mut out = Map::new();
            for ((k, v), keep) in map.into_iter().zip(keep) {
                let v = if keep { v } else { convert(v, key_of) };
                out.insert(key_of(&k), v);
            }
            Value::Object(out)
        }
        Value::Array(items) => {
            Value::Array(items.into_iter().map(|v| convert(v, key_of)).collect())
        }
        other => other,
    }
}

/// The key of `known` the caller most likely meant by `key`, which it lacks: the same but for
/// case and underscores, or one typing slip away ([`slipped`]), else one that starts the other
/// (`pollInterval` for `pollIntervalMs`).
pub fn near_key<'a>(key: &str, known: &[&'a str]) -> Option<&'a str> {
    let given = flat(key);
    let start = |k: &str| {
        let k = flat(k);
        given.len() >= 3 && (k.starts_with(&given) || given.starts_with(&k))
    };
    let found = known.iter().find(|k| slipped(key, k));
    found.or_else(|| known.iter().find(|k| start(k))).copied()
}

/// Whether `a` is `b` written by a slip: the same but for case and underscores (`task_id`,
/// `capMS`), or, from four letters, two neighbours swapped or one letter wrong, missing or
/// extra (`stauts`, `durabel`).
fn slipped(a: &str, b: &str) -> bool {
    let (a, b) = (flat(a), flat(b));
    a == b || (a.len() >= 4 && one_slip(&a, &b))
}

/// A key's letters in lower case, underscores left out. ASCII only: `char::to_lowercase` would
/// link Unicode's case tables for these hints.
fn flat(key: &str) -> Vec<u8> {
    key.bytes()
        .filter(|b| *b != b'_')
        .map(|b| b.to_ascii_lowercase())
        .collect()
}

/// Whether `a` and `b` differ by one typing slip: two neighbours swapped, or one letter wrong,
/// missing or extra.
fn one_slip(a: &[u8], b: &[u8]) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    // From the first difference on.
    let start = short.iter().zip(long).take_while(|(x, y)| x == y).count();
    let (s, l) = (
        short.get(start..).unwrap_or_default(),
        long.get(start..).unwrap_or_default(),
    );
    match long.len() - short.len() {
        0 => {
            s.get(1..) == l.get(1..)
                || matches!((s, l), ([x, y, s_rest @ ..], [y2, x2, l_rest @ ..])
                    if x == x2 && y == y2 && s_rest == l_rest)
        }
        1 => Some(s) == l.get(1..),
        _ => false,
    }
}

/// The first key of `given` (camelCase) that `known` (the value read back, camelCase) lacks,
/// as a dotted path, with the known key it was likely meant for ([`near_key`]);
/// `null` values are let through (an absent optional reads back absent).
fn unknown_key(given: &Value, known: &Value, path: &str) -> Option<(String, Option<String>)> {
    match (given, known) {
        (Value::Object(g), Value::Object(k)) => g.iter().find_map(|(key, v)| {
            let here = if path.is_empty() {
                key.clone()
            } else {
                format!("{path}.{key}")
            };
            match k.get(key) {
                None if v.is_null() => None,
                None => {
                    let known: Vec<&str> = k.keys().map(String::as_str).collect();
                    Some((here, near_key(key, &known).map(String::from)))
                }
                Some(_) if opaque(key, g) => None,
                Some(kv) => unknown_key(v, kv, &here),
            }
        }),
        (Value::Array(g), Value::Array(k)) => g
            .iter()
            .zip(k)
            .enumerate()
            .find_map(|(i, (g, k))| unknown_key(g, k, &format!("{path}[{i}]"))),
        _ => None,
    }
}

/// A reader's message with the fields it names spelled as the caller writes them: serde names
/// the snake_case member the core read (`` missing field `is_error` ``), which the caller never
/// wrote. Only serde's field clauses are re-spelled (missing, duplicate or unknown field, and the
/// list of fields after an unknown one); an unknown variant's list of `type` or status values,
/// or a quoted input value, is a value, and stays as written.
fn camel_fields(message: &str, given: &Value) -> String {
    for clause in ["missing field `", "duplicate field `"] {
        if let Some(name) = message
            .strip_prefix(clause)
            .and_then(|m| m.strip_suffix('`'))
        {
            return format!("{clause}{}`", camel(name));
        }
    }
    const UNKNOWN: &str = "unknown field `";
    let Some(rest) = message.strip_prefix(UNKNOWN) else {
        return message.into();
    };
    // `unknown field `KEY`, expected LIST` or `..., there are no fields`. The key may hold
    // anything, the list only the type's own names: the last separator is the real one.
    let Some(at) = rfind(rest, "`, expected ").or_else(|| rfind(rest, "`, there are no fields"))
    else {
        return message.into();
    };
    let (key, tail) = rest.split_at(at);
    let mut out = format!(
        "{UNKNOWN}{}",
        spelled(given, key).unwrap_or_else(|| camel(key))
    );
    // The tail opens with the key's closing tick, so its listed names are the even pieces
    // after the first.
    for (i, piece) in tail.split('`').enumerate() {
        if i > 0 {
            out.push('`');
        }
        if i >= 2 && i % 2 == 0 {
            out.push_str(&camel(piece));
        } else {
            out.push_str(piece);
        }
    }
    out
}

/// The caller's own spelling of a key that reads as `key` in snake_case (`capMs` for `cap_ms`,
/// or `cap_ms` itself when written so), found anywhere in `given`.
fn spelled(given: &Value, key: &str) -> Option<String> {
    match given {
        Value::Object(map) => map.iter().find_map(|(k, v)| {
            if snake(k) == key {
                Some(k.clone())
            } else {
                spelled(v, key)
            }
        }),
        Value::Array(items) => items.iter().find_map(|v| spelled(v, key)),
        _ => None,
    }
}

/// A reader's message as a JavaScript caller reads it: the member names the core's readers
/// lead it with (`task: poll_interval_ms: ...`) as one path in the caller's spelling
/// (`task.pollIntervalMs: ...`), the field clauses re-spelled ([`camel_fields`]), and a Rust
/// number type said in words.
fn for_caller(message: &str, given: &Value) -> String {
    let mut path = String::new();
    let mut rest = message;
    while let Some((name, tail)) = split_clause(rest) {
        if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            break;
        }
        if !path.is_empty() {
            path.push('.');
        }
        path.push_str(&spelled(given, name).unwrap_or_else(|| camel(name)));
        rest = tail;
    }
    let mut words = camel_fields(rest, given);
    for (rust, said) in NUMBER_TYPES {
        if let Some(head) = words.strip_suffix(rust) {
            words = format!("{head}{said}");
            break;
        }
    }
    if path.is_empty() {
        words
    } else {
        format!("{path}: {words}")
    }
}

/// The last byte position of `needle` in `hay`. A byte search rather than `str::rfind`: a
/// `&str` pattern links core's two-way searcher into the module for these few error messages.
fn rfind(hay: &str, needle: &str) -> Option<usize> {
    hay.as_bytes()
        .windows(needle.len())
        .rposition(|w| w == needle.as_bytes())
}

/// `message` split at its first `": "` (see [`rfind`] for why not `str::split_once`).
fn split_clause(message: &str) -> Option<(&str, &str)> {
    let at = message.as_bytes().windows(2).position(|w| w == b": ")?;
    Some((message.get(..at)?, message.get(at + 2..)?))
}

/// serde's names of the number types the core reads, as a JavaScript caller would say them.
const NUMBER_TYPES: &[(&str, &str)] = &[
    ("expected u8", "expected an integer from 0 to 255"),
    ("expected u16", "expected an integer from 0 to 65535"),
    ("expected u32", "expected an integer from 0 to 4294967295"),
    ("expected u64", "expected an integer of 0 or more"),
    ("expected usize", "expected an integer of 0 or more"),
    ("expected i32", "expected an integer"),
    ("expected i64", "expected an integer"),
    ("expected f64", "expected a number"),
];

/// Reads a camelCase JavaScript value (as JSON text) into a core type; a key the type does not
/// have is `malformed`, naming it.
pub fn read<T: DeserializeOwned + Serialize>(text: &str, field: &str) -> Result<T, Error> {
    // Only the typed steps are per type. The helpers take the caller's value and drop it
    // themselves, so that each type's copy of this function holds no more than those steps
    // (with the whole reading inlined here, each was about 1 KB of the module).
    let (given, snake_case) = given(text, field)?;
    match serde_json::from_value::<T>(snake_case) {
        Ok(value) => {
            known_keys(given, to_value(&value).unwrap_or(Value::Null), field)?;
            Ok(value)
        }
        Err(e) => Err(refused(&e, given, field)),
    }
}

/// The caller's value as written, and with its keys in snake_case for the core's reader.
fn given(text: &str, field: &str) -> Result<(Value, Value), Error> {
    let given: Value = crate::json::parse(text, field)?;
    let snake_case = convert(given.clone(), snake);
    Ok((given, snake_case))
}

/// serde's refusal of `given`, said as the caller spells it ([`for_caller`]), with the key a
/// missing member was misspelt as.
pub fn refused(e: &serde_json::Error, given: Value, field: &str) -> Error {
    let said = for_caller(&e.to_string(), &given);
    // A required member missing because the caller misspelt it (`stauts`): say which key that
    // likely is, where the key itself is not refused (a reader that fails on the missing member
    // first never reaches the unknown one).
    const MISSING: &str = "missing field `";
    let hint = rfind(&said, MISSING)
        .and_then(|at| said.get(at + MISSING.len()..))
        .and_then(|name| name.strip_suffix('`'))
        .and_then(|name| misspelt(&given, name))
        .map_or(String::new(), |k| format!(" (is \"{k}\" it, misspelt?)"));
    Error::Malformed {
        what: "argument",
        reason: format!("{field}: {}{hint}", crate::json::short_reason(&said)),
    }
}

/// A key anywhere in `given` that is `name` written by a slip ([`slipped`]).
fn misspelt(given: &Value, name: &str) -> Option<String> {
    match given {
        Value::Object(map) => map.iter().find_map(|(k, v)| {
            if k != name && slipped(k, name) {
                Some(crate::json::short_reason(k))
            } else {
                misspelt(v, name)
            }
        }),
        Value::Array(items) => items.iter().find_map(|v| misspelt(v, name)),
        _ => None,
    }
}

/// `malformed`, naming the first key of `given` that the value read back (`back`, in
/// snake_case) does not have: a key the type dropped.
fn known_keys(given: Value, back: Value, field: &str) -> Result<(), Error> {
    match unknown_key(&given, &convert(back, camel), "") {
        None => Ok(()),
        Some((key, spelt)) => {
            let hint = spelt.map_or(String::new(), |k| format!(" (did you mean \"{k}\"?)"));
            Err(Error::Malformed {
                what: "argument",
                reason: format!(
                    "{field}: unknown key {}{hint}",
                    crate::json::short_reason(&format!("\"{key}\""))
                ),
            })
        }
    }
}

/// A core value as camelCase JSON text.
pub fn write<T: Serialize + ?Sized>(value: &T) -> Result<String, Error> {
    let v = to_value(value).map_err(|e| Error::invalid_input("output", &e.to_string()))?;
    Ok(longcall::json_text(&camel_value(v)))
}

/// A camelCase JavaScript argument read into a core type (`JSON.stringify` in the engine, then
/// [`read`]): a key the type does not have is refused by name.
pub fn read_js<T: DeserializeOwned + Serialize>(
    value: &wasm_bindgen::JsValue,
    field: &str,
) -> Result<T, Error> {
    crate::json::stringify(value, field).and_then(|text| read(&text, field))
}

/// A core value as a plain JavaScript value with camelCase keys ([`write`], then `JSON.parse`).
pub fn write_js<T: Serialize + ?Sized>(
    value: &T,
) -> crate::errors::JsResult<wasm_bindgen::JsValue> {
    js_sys::JSON::parse(&crate::errors::js(write(value))?)
}

/// A core value as a `serde_json::Value`, through JSON text: `serde_json::to_value` would
/// compile a second serializer of every type beside the text one the module needs anyway (the
/// result is the same: a `Value`'s object keys are sorted either way).
pub fn to_value<T: Serialize + ?Sized>(value: &T) -> Result<Value, serde_json::Error> {
    serde_json::from_slice(&serde_json::to_vec(value)?)
}

/// A core value already in JSON, with its keys in camelCase (the caller's own JSON untouched).
pub fn camel_value(value: Value) -> Value {
    convert(value, camel)
}

#[cfg(test)]
mod tests {
    use super::*;
    use longcall::tracker::{Input, Output, Request};
    use serde_json::json;

    #[test]
    fn near_keys_are_slips_case_or_a_start() {
        let known = ["pollIntervalMs", "ttlMs", "durable", "status", "taskId"];
        let near = |k| near_key(k, &known);
        assert_eq!(near("poll_interval_ms"), Some("pollIntervalMs"));
        assert_eq!(near("TTLMS"), Some("ttlMs"));
        assert_eq!(near("durabel"), Some("durable"), "two neighbours swapped");
        assert_eq!(near("stauts"), Some("status"));
        assert_eq!(near("statsu"), Some("status"));
        assert_eq!(near("statu"), Some("status"), "one missing");
        assert_eq!(near("sttatus"), Some("status"), "one extra");
        assert_eq!(near("statis"), Some("status"), "one wrong");
        assert_eq!(near("pollInterval"), Some("pollIntervalMs"), "a start");
        assert_eq!(near("bogus"), None);
        assert_eq!(near("tsk"), None, "three letters: no slip is guessed");
        assert_eq!(near("sutats"), None, "more than one slip");
    }

    #[test]
    fn keys_both_ways() {
        assert_eq!(snake("pollIntervalMs"), "poll_interval_ms");
        assert_eq!(camel("poll_interval_ms"), "pollIntervalMs");
        assert_eq!(camel("idempotency_key"), "idempotencyKey");
        assert_eq!(snake("type"), "type");
        assert_eq!(camel("_meta"), "_meta");
    }

    #[test]
    fn reads_camel_and_names_unknown_keys() {
        let input: Input = read(
            r#"{"type":"task_polled","task":{"taskId":"t","status":"completed","pollIntervalMs":5000,
               "result":{"isError":false,"value":{"snake_key":1,"camelKey":2}}}}"#,
            "input",
        )
        .unwrap();
        let Input::TaskPolled { task } = input else {
            panic!("{input:?}")
        };
        assert_eq!(task.poll_interval_ms, Some(5000));
        assert_eq!(
            task.result.unwrap().value,
            json!({"snake_key": 1, "camelKey": 2}),
            "a tool result is carried as it is"
        );
        let e = read::<Input>(
            r#"{"type":"task_polled","task":{"taskId":"t","status":"working","capMs":1}}"#,
            "input",
        )
        .unwrap_err();
        assert_eq!(e.code(), "malformed");
        assert!(e.to_string().contains("task.capMs"), "{e}");
        let e = read::<Input>(
            r#"{"type":"task_polled","task":{"task_id":"t","status":"working"}}"#,
            "input",
        )
        .unwrap_err();
        assert_eq!(
            e.code(),
            "malformed",
            "snake_case is not the JavaScript spelling"
        );
        assert!(
            e.to_string()
                .ends_with(r#"unknown key "task.task_id" (did you mean "taskId"?)"#),
            "{e}"
        );
        assert!(read::<Input>(
            r#"{"type":"task_polled","task":{"taskId":"t","status":"working","ttlMs":null}}"#,
            "input"
        )
        .is_ok());
    }

    #[test]
    fn names_fields_as_the_caller_spells_them() {
        let none = Value::Null;
        assert_eq!(
            camel_fields("missing field `is_error`", &none),
            "missing field `isError`"
        );
        assert_eq!(
            camel_fields("duplicate field `poll_interval_ms`", &none),
            "duplicate field `pollIntervalMs`"
        );
        let given = json!({"count": 1, "startMz": 2, "nested": [{"server_intervl_ms": 3}]});
        assert_eq!(
            camel_fields(
                "unknown field `start_mz`, expected one of `seed`, `start_ms`, `count`",
                &given
            ),
            "unknown field `startMz`, expected one of `seed`, `startMs`, `count`"
        );
        assert_eq!(
            camel_fields(
                "unknown field `server_intervl_ms`, expected `server_interval_ms`",
                &given
            ),
            "unknown field `server_intervl_ms`, expected `serverIntervalMs`",
            "an unknown key is quoted as written, even in snake_case"
        );
        assert_eq!(
            camel_fields("unknown field `a_b`, there are no fields", &none),
            "unknown field `aB`, there are no fields"
        );
        // A key that holds the separator: the list after the last one is the real list.
        let odd = json!({"x`, expected `y_z": 1});
        assert_eq!(
            camel_fields(
                "unknown field `x`, expected `y_z`, expected `task_id`",
                &odd
            ),
            "unknown field `x`, expected `y_z`, expected `taskId`"
        );
        // Values, not fields: a `type` tag's variants, a status, a quoted input value.
        for message in [
            "unknown variant `task_pold`, expected one of `task_polled`, `job_polled`",
            "unknown variant `in_progress`, expected one of `working`, `input_required`",
            "invalid type: string \"missing field `is_error`\", expected a boolean",
            "missing field `is_error` and more",
        ] {
            assert_eq!(camel_fields(message, &none), message);
        }
    }

    #[test]
    fn read_names_fields_in_camel_case() {
        let e = read::<Input>(
            r#"{"type":"task_polled","task":{"taskId":"t","status":"completed","result":{"content":[]}}}"#,
            "input",
        )
        .unwrap_err();
        assert_eq!(e.code(), "malformed");
        assert!(e.to_string().ends_with("missing field `isError`"), "{e}");
        let e = read::<Input>(
            r#"{"type":"task_polled","task":{"taskId":"t","status":"in_progress"}}"#,
            "input",
        )
        .unwrap_err();
        assert!(
            e.to_string().contains("`input_required`"),
            "a status value stays as written: {e}"
        );
    }

    #[test]
    fn read_says_where_a_refused_value_sits() {
        let reason = |text: &str| read::<Input>(text, "input").unwrap_err().to_string();
        assert_eq!(
            reason(
                r#"{"type":"task_polled","task":{"taskId":"t","status":"working","pollIntervalMs":"5000"}}"#
            ),
            "malformed argument: input: task.pollIntervalMs: invalid type: string \"5000\", \
             expected an integer of 0 or more"
        );
        assert_eq!(
            reason(r#"{"type":"task_polled","task":{"taskId":"t","status":"bogus"}}"#)
                .split(", expected")
                .next(),
            Some("malformed argument: input: task.status: unknown variant `bogus`")
        );
        assert_eq!(
            reason(
                r#"{"type":"task_polled","task":{"taskId":"t","status":"input_required","inputRequests":[{"key":1,"request":{}}]}}"#
            ),
            "malformed argument: input: task.inputRequests.key: invalid type: integer `1`, \
             expected a string"
        );
        assert_eq!(
            reason(
                r#"{"type":"task_polled","task":{"taskId":"t","status":"completed","result":{"content":[]}}}"#
            ),
            "malformed argument: input: task.result: missing field `isError`"
        );
        // Written in snake_case, named as written.
        assert_eq!(
            reason(
                r#"{"type":"task_polled","task":{"task_id":"t","status":"working","poll_interval_ms":-5}}"#
            ),
            "malformed argument: input: task.poll_interval_ms: invalid value: integer `-5`, \
             expected an integer of 0 or more"
        );
    }

    #[test]
    fn writes_camel_and_keeps_opaque_values() {
        let out = Output::Send {
            request: Request::Cancel {
                handle: "j".into(),
                idempotency_key: Some("k".into()),
            },
        };
        let v: Value = serde_json::from_str(&write(&out).unwrap()).unwrap();
        assert_eq!(v["request"]["idempotencyKey"], "k");
        let ask = Output::AskUser {
            key: "k".into(),
            request: json!({"requested_schema": {}}).into(),
            call: false,
        };
        let v: Value = serde_json::from_str(&write(&ask).unwrap()).unwrap();
        assert_eq!(v["request"], json!({"requested_schema": {}}));
    }
}
