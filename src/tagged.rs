//! Reading JSON objects member by member from a `serde_json::Value`, in place of serde's derived
//! readers where those cost most WebAssembly:
//!
//! * internally tagged enums (`{"type": "send", "request": {...}}`) and structs that keep the
//!   rest of their members (`#[serde(flatten)]`), which the derive buffers in serde's private
//!   content form, compiling a reader of every field's type for that form as well;
//! * the structs of snapshots and configurations, whose derived readers also compile an array
//!   form (`[1000, 200, ...]`) nobody writes;
//! * unit enums (`"working"`), read by [`unit()`] from each enum's table of names instead of a
//!   derived reader per enum.
//!
//! Here the value is read once as a `Value` and each member is taken from it by the `Value`
//! reader the other paths already have. Same results as the derived readers: a tag is required
//! and must name a variant, members are read by their own types (`Option` members may be absent
//! or `null`; `#[serde(default)]` ones take the default when absent), other members are
//! ignored, and errors carry serde's own messages (tested below), led by the name of the member
//! whose value was refused (`task: status: unknown variant ...`): serde's derive says what was
//! wrong but not where, which in a nested input leaves the reader guessing. Only the array
//! forms serde also accepts (`["idle"]`, a struct as an array) are not read: no writer
//! produces them.

use alloc::string::String;

use serde::de::{DeserializeOwned, Error, Unexpected};
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

/// The members of an object being read (a tagged value's without its tag), taken one by one.
pub(crate) struct Fields(Map<String, Value>);

/// Reads a tagged value: its tag (member `tag`) and the other members. `expecting` names the
/// enum in a type error (`internally tagged enum Output`, as serde says).
pub(crate) fn read<'de, D: Deserializer<'de>>(
    d: D,
    tag: &'static str,
    expecting: &'static str,
) -> Result<(String, Fields), D::Error> {
    let Fields(mut map) = members(d, expecting)?;
    match map.remove(tag) {
        Some(Value::String(name)) => Ok((name, Fields(map))),
        Some(other) => Err(D::Error::invalid_type(
            unexpected(&other),
            &"variant identifier",
        )),
        None => Err(D::Error::missing_field(tag)),
    }
}

/// Reads the members of an object (a struct read by hand: `expecting` is `struct Ack`).
pub(crate) fn members<'de, D: Deserializer<'de>>(
    d: D,
    expecting: &'static str,
) -> Result<Fields, D::Error> {
    match Value::deserialize(d)? {
        Value::Object(map) => Ok(Fields(map)),
        other => Err(D::Error::invalid_type(unexpected(&other), &expecting)),
    }
}

pub(crate) fn unexpected(value: &Value) -> Unexpected<'_> {
    match value {
        Value::Null => Unexpected::Unit,
        Value::Bool(b) => Unexpected::Bool(*b),
        Value::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
            (Some(u), _, _) => Unexpected::Unsigned(u),
            (None, Some(i), _) => Unexpected::Signed(i),
            (None, None, Some(f)) => Unexpected::Float(f),
            (None, None, None) => Unexpected::Other("number"),
        },
        Value::String(s) => Unexpected::Str(s),
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
    }
}

impl Fields {
    /// A required member.
    pub(crate) fn req<T: DeserializeOwned, E: Error>(
        &mut self,
        name: &'static str,
    ) -> Result<T, E> {
        match self.0.remove(name) {
            Some(v) => T::deserialize(v).map_err(|e| within(name, &e)),
            None => Err(E::missing_field(name)),
        }
    }

    /// An optional member: absent and `null` are `None` (what `Option`'s reader makes of a
    /// `Value`, without compiling that reader around every member type).
    pub(crate) fn opt<T: DeserializeOwned, E: Error>(
        &mut self,
        name: &'static str,
    ) -> Result<Option<T>, E> {
        match self.0.remove(name) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => T::deserialize(v).map(Some).map_err(|e| within(name, &e)),
        }
    }

    /// Any present member, `null` included (`Some(Value::Null)`); `None` when absent.
    pub(crate) fn present(&mut self, name: &str) -> Option<Value> {
        self.0.remove(name)
    }

    /// A member that takes its type's default when absent (`#[serde(default)]`).
    pub(crate) fn def<T: DeserializeOwned + Default, E: Error>(
        &mut self,
        name: &'static str,
    ) -> Result<T, E> {
        self.or(name, T::default())
    }

    /// The members not taken (a `#[serde(flatten)]` map of the rest).
    pub(crate) fn into_map(self) -> Map<String, Value> {
        self.0
    }

    /// A member that takes `fallback` when absent (a struct's `#[serde(default)]`).
    pub(crate) fn or<T: DeserializeOwned, E: Error>(
        &mut self,
        name: &'static str,
        fallback: T,
    ) -> Result<T, E> {
        match self.0.remove(name) {
            Some(v) => T::deserialize(v).map_err(|e| within(name, &e)),
            None => Ok(fallback),
        }
    }

    /// All the members left, for a variant that holds a value of its own (`Event::Transmit`).
    pub(crate) fn rest<T: DeserializeOwned, E: Error>(self) -> Result<T, E> {
        T::deserialize(Value::Object(self.0)).map_err(E::custom)
    }
}

/// An object of `pairs`, the last of equal keys kept (what `collect` gives), built by inserting
/// them one by one: `collect` sorts them first, which compiles a stable sort per element type
/// into WebAssembly builds for objects of a few members.
pub(crate) fn object<I: IntoIterator<Item = (String, Value)>>(pairs: I) -> Map<String, Value> {
    let mut map = Map::new();
    for (key, value) in pairs {
        map.insert(key, value);
    }
    map
}

/// Reads a struct's members in the map's order as serde's derived reader does, messages included:
/// members not named in `fields` are skipped, a member `take` refuses is its error (the first in
/// the map's order), anything but an object is an invalid type naming `expecting`; the caller
/// then names what is missing. `take` reads each member by its index in `fields`. (The derived
/// reader also compiles an array form no writer makes, per struct.)
pub(crate) fn in_order<'de, D: Deserializer<'de>>(
    d: D,
    expecting: &'static str,
    fields: &'static [&'static str],
    take: &mut dyn FnMut(usize, Value) -> Result<(), serde_json::Error>,
) -> Result<(), D::Error> {
    match Value::deserialize(d)? {
        Value::Object(map) => {
            for (key, value) in map {
                if let Some(i) = fields.iter().position(|f| *f == key) {
                    take(i, value).map_err(|e| within(&key, &e))?;
                }
            }
            Ok(())
        }
        other => Err(D::Error::invalid_type(unexpected(&other), &expecting)),
    }
}

/// A member's error, led by the member's name: nested members read `task: status: unknown
/// variant ...`, so a reader learns where the value serde refused sits, not only what it is.
fn within<E: Error>(name: &str, error: &serde_json::Error) -> E {
    E::custom(format_args!("{name}: {error}"))
}

/// The error for a tag that names no variant.
pub(crate) fn unknown<E: Error>(tag: &str, variants: &'static [&'static str]) -> E {
    E::unknown_variant(tag, variants)
}

/// Reads a unit variant by its name, for enums whose readers would otherwise each be derived:
/// the derive compiles a variant reader, an enum visitor and serde_json's enum access per enum,
/// where this one reader serves every unit enum. Same JSON and messages as the derive (it goes
/// through the same `deserialize_enum`): a string names the variant, and so does an object of
/// one member whose value is `null` (serde's map form); anything else is serde_json's own error.
/// (The derive also reads a variant by its index or bytes, which no JSON reader hands it.)
/// Returns the name's position in `names`.
pub(crate) fn unit<'de, D: Deserializer<'de>>(
    d: D,
    expecting: &'static str,
    names: &'static [&'static str],
) -> Result<usize, D::Error> {
    d.deserialize_enum("", names, UnitVisitor { expecting, names })
}

struct UnitVisitor {
    expecting: &'static str,
    names: &'static [&'static str],
}

impl<'de> serde::de::Visitor<'de> for UnitVisitor {
    type Value = usize;

    fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.expecting)
    }

    fn visit_enum<A: serde::de::EnumAccess<'de>>(self, data: A) -> Result<usize, A::Error> {
        let (i, variant) = data.variant_seed(Names(self.names))?;
        serde::de::VariantAccess::unit_variant(variant)?;
        Ok(i)
    }
}

/// A variant's name, read as its position among a unit enum's names.
struct Names(&'static [&'static str]);

impl<'de> serde::de::DeserializeSeed<'de> for Names {
    type Value = usize;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<usize, D::Error> {
        d.deserialize_identifier(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Names {
    type Value = usize;

    fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("variant identifier")
    }

    fn visit_str<E: Error>(self, v: &str) -> Result<usize, E> {
        self.0
            .iter()
            .position(|n| *n == v)
            .ok_or_else(|| E::unknown_variant(v, self.0))
    }
}

/// `Deserialize` for a unit enum through [`unit()`], from one table: its values and their
/// names (serde's spellings; a test checks each against the derived writer). Either the enum's
/// own list and a `const fn` naming each (`unit_enum!(Status, "enum Status", &Status::ALL,
/// Status::as_str)`), or the pairs (`unit_enum!(Jitter, "enum Jitter", [(Jitter::None,
/// "none"), ...])`).
macro_rules! unit_enum {
    ($ty:ty, $expecting:expr, $all:expr, $name:path) => {
        impl<'de> serde::Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                const ALL: &[$ty] = $all;
                // Evaluated by the compiler: an index out of range fails the build, not a run.
                #[allow(clippy::indexing_slicing)]
                const NAMES: &[&str] = &{
                    let mut names = [""; ALL.len()];
                    let mut i = 0;
                    while i < ALL.len() {
                        names[i] = $name(ALL[i]);
                        i += 1;
                    }
                    names
                };
                $crate::tagged::unit_enum!(@read d, $expecting, ALL, NAMES)
            }
        }
    };
    ($ty:ty, $expecting:expr, [$(($v:expr, $n:literal)),+ $(,)?]) => {
        impl<'de> serde::Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                const ALL: &[$ty] = &[$($v),+];
                const NAMES: &[&str] = &[$($n),+];
                $crate::tagged::unit_enum!(@read d, $expecting, ALL, NAMES)
            }
        }
    };
    (@read $d:ident, $expecting:expr, $all:ident, $names:ident) => {{
        let i = $crate::tagged::unit($d, $expecting, $names)?;
        $all.get(i)
            .copied()
            .ok_or_else(|| <D::Error as serde::de::Error>::custom("variant index out of range"))
    }};
}
pub(crate) use unit_enum;

#[cfg(test)]
mod tests {
    use alloc::format;
    use alloc::string::ToString;
    use alloc::vec;
    use alloc::vec::Vec;
    use core::fmt::Debug;

    use serde::Serialize;
    use serde_json::json;

    use super::*;
    use crate::admission::{Advice, ErrorCode, PermanentReason, SubmitAnswer, Submitted};
    use crate::batch::WaitCall;
    use crate::cancel::{ButtonState, CancelAnswer};
    use crate::endpoint::client::{Event, Transmit};
    use crate::job_vocab::WaitFor;
    use crate::outcome::Outcome;
    use crate::status::{JobStatus, Status, TaskStatus};
    use crate::tracker::{Failure, Output, Request, StopReason};
    use crate::view::RpcError;
    use crate::violation::{Rule, Violation};
    use crate::wave::{IgnoredReason, Released, WaveOutput};

    /// Every value reads back equal from the derived writer's JSON, as text and as a `Value`, and
    /// members of no variant are ignored.
    fn round_trips<T: Serialize + DeserializeOwned + PartialEq + Debug>(values: &[T]) {
        for v in values {
            let text = serde_json::to_string(v).unwrap();
            assert_eq!(&serde_json::from_str::<T>(&text).unwrap(), v, "{text}");
            let mut value = serde_json::to_value(v).unwrap();
            value["zz_other"] = json!([1]);
            assert_eq!(&serde_json::from_value::<T>(value).unwrap(), v, "{text}");
        }
    }

    fn error<T: DeserializeOwned + Debug>(text: &str) -> String {
        serde_json::from_value::<T>(serde_json::from_str(text).unwrap())
            .unwrap_err()
            .to_string()
    }

    /// A hand reader's message as serde's derive words it: without the leading name of the
    /// member of `input` whose value was refused (the derive names no member).
    fn as_derived(message: String, input: &Value) -> String {
        match message.split_once(": ") {
            Some((member, rest)) if input.get(member).is_some() => rest.into(),
            _ => message,
        }
    }

    fn violation() -> Violation {
        Violation::new(Rule::ALL[0], "d")
    }

    #[test]
    fn tracker_outputs_round_trip() {
        let get = Request::Get { handle: "h".into() };
        round_trips(&[
            get.clone(),
            Request::Cancel {
                handle: "h".into(),
                idempotency_key: Some("k".into()),
            },
            Request::Cancel {
                handle: "h".into(),
                idempotency_key: None,
            },
            Request::Update {
                handle: "h".into(),
                responses: vec![("k".into(), json!(null).into())],
            },
            Request::FetchResult { handle: "h".into() },
            Request::ContinueCall {
                responses: vec![("k".into(), json!({"a": 1}).into())],
                request_state: Some(json!("s").into()),
            },
        ]);
        round_trips(&[
            Failure::Rpc {
                error: RpcError {
                    code: -1,
                    message: "m".into(),
                    data: Some(json!(1).into()),
                },
            },
            Failure::Http {
                status: 429,
                code: Some("queue_full".into()),
                retry_after_ms: Some(5),
            },
            Failure::Http {
                status: 500,
                code: None,
                retry_after_ms: None,
            },
            Failure::Transport,
        ]);
        round_trips(&[
            Output::Send { request: get },
            Output::AskUser {
                key: "k".into(),
                request: json!({"a": 1}).into(),
                call: true,
            },
            Output::AskUser {
                key: "k".into(),
                request: json!(null).into(),
                call: false,
            },
            Output::Button {
                state: ButtonState::Available,
            },
            Output::Status {
                status: Status::Working,
            },
            Output::Violation {
                violation: violation(),
            },
            Output::Settled {
                outcome: Outcome::Succeeded,
                status: Some(Status::Completed),
                result: Some(json!({"isError": false}).into()),
                error: None,
            },
            Output::Settled {
                outcome: Outcome::Succeeded,
                status: None,
                result: None,
                error: Some(json!({"code": 1}).into()),
            },
            Output::Stopped {
                reason: StopReason::Deadline,
            },
            Output::WakeAt { at: 5 },
            Output::Idle,
        ]);
    }

    #[test]
    fn endpoint_events_round_trip() {
        let rpc = Transmit::Rpc {
            id: 1,
            text: "{}".into(),
            headers: vec![("a".into(), "b".into())],
        };
        let http = Transmit::Http {
            request_ref: 2,
            method: "GET".into(),
            path: "/jobs/j".into(),
            headers: vec![],
            body: Some("{}".into()),
        };
        round_trips(&[rpc.clone(), http.clone()]);
        round_trips(&[
            Event::Transmit(rpc),
            Event::Transmit(http),
            Event::AskUser {
                key: "k".into(),
                request: json!({}).into(),
                call: true,
            },
            Event::Button {
                state: ButtonState::Available,
            },
            Event::Status {
                status: Status::Queued,
            },
            Event::Violation {
                violation: violation(),
            },
            Event::Settled {
                outcome: Outcome::Succeeded,
                status: Some(Status::Completed),
                result: Some(json!(1).into()),
                error: Some(json!(2).into()),
            },
            Event::Stopped {
                reason: StopReason::MaxPolls,
                failure: None,
            },
            Event::Stopped {
                reason: StopReason::CreateUnanswered,
                failure: Some(Failure::Http {
                    status: 429,
                    code: None,
                    retry_after_ms: Some(30_000),
                }),
            },
            Event::Admission {
                advice: Advice::QueueFull {
                    not_before_ms: Some(1),
                },
                http_status: 429,
                request_id: Some("r".into()),
            },
            Event::WakeAt { at: 9 },
            Event::Idle,
        ]);
    }

    #[test]
    fn wave_admission_and_cancel_answers_round_trip() {
        round_trips(&[
            WaveOutput::Wait {
                call_id: 1,
                call: WaitCall {
                    job_ids: vec!["a".into()],
                    wait_for: WaitFor::Any,
                    timeout_seconds: Some(3),
                    include_results: true,
                },
            },
            WaveOutput::Job {
                id: "a".into(),
                output: Output::Idle,
            },
            WaveOutput::Released {
                id: "a".into(),
                released: Released::CancelRequested,
            },
            WaveOutput::CallFailed {
                call_id: 2,
                failure: Failure::Http {
                    status: 429,
                    code: Some("rate_limit_exceeded".into()),
                    retry_after_ms: Some(5),
                },
                reason: None,
            },
            WaveOutput::CallFailed {
                call_id: 3,
                failure: Failure::Transport,
                reason: Some("why".into()),
            },
            WaveOutput::Ignored {
                id: "a".into(),
                reason: IgnoredReason::NotInWave,
            },
            WaveOutput::Ignored {
                id: "a".into(),
                reason: IgnoredReason::Refused {
                    code: "c".into(),
                    message: "m".into(),
                },
            },
            WaveOutput::Satisfied {
                by: Some("a".into()),
            },
            WaveOutput::Satisfied { by: None },
            WaveOutput::WakeAt { at: 1 },
            WaveOutput::Idle,
        ]);
        round_trips(&[
            Submitted::Answer(SubmitAnswer {
                http_status: 429,
                error_code: ErrorCode::parse("queue_full"),
                retry_after_ms: Some(1),
            }),
            Submitted::LocalTimeout,
            Submitted::TransportError,
        ]);
        round_trips(&[
            Advice::Accepted,
            Advice::QueueFull {
                not_before_ms: None,
            },
            Advice::RetryAfter {
                not_before_ms: Some(2),
            },
            Advice::Backoff {
                not_before_ms: Some(3),
            },
            Advice::Permanent {
                reason: PermanentReason::InsufficientCredits,
            },
            Advice::Reconcile,
        ]);
        round_trips(&[
            CancelAnswer::Ack,
            CancelAnswer::Task {
                status: TaskStatus::Cancelled,
            },
            CancelAnswer::RpcError { code: -32602 },
            CancelAnswer::Job {
                status: JobStatus::Canceled,
            },
            CancelAnswer::JobError {
                http_status: 409,
                code: ErrorCode::parse("not_cancelable"),
                cancelable: Some(false),
            },
            CancelAnswer::NoAnswer,
        ]);
    }

    #[test]
    fn acks_keep_other_members() {
        use crate::wire::mcp2026::Ack;
        let ack: Ack =
            serde_json::from_str(r#"{"resultType":"complete","_meta":{"a":1},"x":[1],"y":null}"#)
                .unwrap();
        assert_eq!(ack.result_type.as_deref(), Some("complete"));
        assert_eq!(ack.meta, Some(json!({"a": 1})));
        assert_eq!(
            Value::Object(ack.extra.clone()),
            json!({"x": [1], "y": null})
        );
        for a in [ack, Ack::complete()] {
            let text = serde_json::to_string(&a).unwrap();
            assert_eq!(serde_json::from_str::<Ack>(&text).unwrap(), a, "{text}");
        }
        let bare: Ack = serde_json::from_str(r#"{"resultType":null,"_meta":null}"#).unwrap();
        assert_eq!((bare.result_type, bare.meta), (None, None));
        assert!(bare.extra.is_empty());
        assert_eq!(
            error::<Ack>(r#"{"resultType":1}"#),
            "resultType: invalid type: integer `1`, expected a string"
        );
        assert_eq!(
            error::<Ack>("[]"),
            "invalid type: sequence, expected struct Ack"
        );
    }

    /// What a reader makes of each input: the variant's name (`Debug`) or the error's message.
    fn readings<T: DeserializeOwned + Debug>(valid: &str) -> Vec<String> {
        let inputs = [
            format!("\"{valid}\""),
            "\"nope\"".into(),
            "\"\"".into(),
            "1".into(),
            "-1".into(),
            "1.5".into(),
            "null".into(),
            "true".into(),
            "[]".into(),
            format!("[\"{valid}\"]"),
            "{}".into(),
            format!("{{\"{valid}\":null}}"),
            format!("{{\"{valid}\":1}}"),
            format!("{{\"{valid}\":{{}}}}"),
            "{\"nope\":null}".into(),
            format!("{{\"{valid}\":null,\"b\":2}}"),
            format!("\"{valid}\" 1"),
            "\"a\\\"b\"".into(),
        ];
        let show = |r: Result<T, serde_json::Error>| match r {
            Ok(t) => format!("{t:?}"),
            Err(e) => e.to_string(),
        };
        inputs
            .iter()
            .flat_map(|text| {
                let v: Option<Value> = serde_json::from_str(text).ok();
                [
                    v.clone().map(|v| show(T::deserialize(v))),
                    v.as_ref().map(|v| show(T::deserialize(v))),
                    Some(show(serde_json::from_str(text))),
                    Some(show(serde_json::from_slice(text.as_bytes()))),
                ]
            })
            .flatten()
            .collect()
    }

    /// Unit enums read through [`unit`] read every input as serde's derive does (each beside a
    /// derived twin with the same variants): names, the map form, and every message.
    #[test]
    fn unit_enums_read_as_derived() {
        #[derive(Deserialize, Debug)]
        #[serde(rename_all = "snake_case")]
        enum WaitFor {
            All,
            Any,
        }
        #[derive(Deserialize, Debug)]
        enum Model {
            #[serde(rename = "task-2026")]
            Task2026,
            #[serde(rename = "task-2025")]
            Task2025,
            #[serde(rename = "job")]
            Job,
        }
        #[derive(Deserialize, Debug)]
        #[serde(rename_all = "snake_case")]
        enum Status {
            Working,
            InputRequired,
            Completed,
            Failed,
            Cancelled,
            Queued,
            Processing,
            Running,
            Canceled,
            Expired,
        }
        #[derive(Deserialize, Debug)]
        #[serde(rename_all = "snake_case")]
        enum Only {
            One,
        }
        #[derive(Clone, Copy, Debug)]
        enum OnlyByTable {
            One,
        }
        unit_enum!(OnlyByTable, "enum OnlyByTable", [(OnlyByTable::One, "one")]);

        assert_eq!(
            readings::<crate::job_vocab::WaitFor>("any"),
            readings::<WaitFor>("any")
        );
        assert_eq!(
            readings::<crate::model::Model>("job"),
            readings::<Model>("job")
        );
        assert_eq!(
            readings::<crate::status::Status>("queued"),
            readings::<Status>("queued")
        );
        assert_eq!(readings::<OnlyByTable>("one"), readings::<Only>("one"));
        assert_eq!(
            error::<crate::status::Status>(r#""nope""#),
            "unknown variant `nope`, expected one of `working`, `input_required`, `completed`, \
             `failed`, `cancelled`, `queued`, `processing`, `running`, `canceled`, `expired`"
        );
    }

    /// Every unit enum read by name reads back what its derived writer wrote, from a `Value` and
    /// from text (so each table spells its variants as serde does).
    #[test]
    fn unit_enums_read_their_writers_names() {
        fn each<T: Serialize + DeserializeOwned + PartialEq + Debug>(all: &[T]) {
            for v in all {
                let text = serde_json::to_string(v).unwrap();
                assert!(text.starts_with('"'), "{text}");
                assert_eq!(&serde_json::from_str::<T>(&text).unwrap(), v, "{text}");
                let value = serde_json::from_str::<Value>(&text).unwrap();
                assert_eq!(&T::deserialize(&value).unwrap(), v, "{text}");
            }
        }
        use crate::endpoint::client::JobDialect;
        use crate::job_vocab::JobErrorCode;
        use crate::model::Model;
        use crate::poll::Jitter;
        use crate::tracker::RequestKind;
        use crate::violation::Level;
        use crate::wave::GiveUp;
        use crate::wire::sume_open::OpenRequest;
        each(&Status::ALL);
        each(TaskStatus::ALL);
        each(JobStatus::ALL);
        each(&Model::ALL);
        each(Rule::ALL);
        each(&[Level::Should, Level::Must]);
        each(&ButtonState::ALL);
        each(JobErrorCode::ALL);
        each(&JobDialect::ALL);
        each(&[WaitFor::All, WaitFor::Any]);
        use Outcome as O;
        each(&[
            O::Succeeded,
            O::ToolError,
            O::ProtocolFailure,
            O::Cancelled,
            O::Failed,
        ]);
        each(&[O::Expired, O::Lost]);
        use RequestKind as K;
        each(&[
            K::Get,
            K::Cancel,
            K::Update,
            K::FetchResult,
            K::ContinueCall,
        ]);
        use StopReason as S;
        each(&[
            S::MaxPolls,
            S::Deadline,
            S::HostStopped,
            S::CreateUnanswered,
            S::AnswerTooLarge,
        ]);
        use OpenRequest as R;
        each(&[R::Submit, R::Status, R::Result, R::Cancel]);
        use PermanentReason as P;
        each(&[
            P::InsufficientCredits,
            P::Unauthorized,
            P::Forbidden,
            P::NotFound,
            P::Rejected,
        ]);
        each(&[
            GiveUp::Deadline,
            GiveUp::Released,
            GiveUp::HostStopped,
            GiveUp::Backoff,
        ]);
        use Released as L;
        each(&[
            L::CancelRequested,
            L::CancelPending,
            L::StoppedWaiting,
            L::AlreadyDone,
        ]);
        use Jitter as J;
        each(&[J::None, J::Full, J::Equal, J::Decorrelated]);
        use crate::poll::ScheduleEnd as E;
        each(&[E::MaxPolls, E::Deadline, E::TtlElapsed]);
        use crate::ownership::Access;
        each(&[Access::Owner, Access::Hidden]);
        use crate::lifecycle::{Observation as Ob, Seed, Transition as T};
        each(&[T::Allowed, T::Repeat, T::Forbidden, T::FromTerminal]);
        each(&[
            Ob::Advance,
            Ob::Repeat,
            Ob::Skipped,
            Ob::Regression,
            Ob::TerminalConflict,
        ]);
        each(&[Seed::Normal, Seed::Unusual, Seed::Violation]);
        use crate::server::Ending as En;
        each(&[
            En::Completed,
            En::Nsfw,
            En::ContentPolicyRejected,
            En::Failed,
        ]);
        use crate::server::CancelMode;
        each(&[CancelMode::Cooperative, CancelMode::Immediate]);
        use crate::server::gate::TaskSupport as Ts;
        each(&[Ts::Forbidden, Ts::Optional, Ts::Required]);
        use crate::server::CancelRule as Cr;
        each(&[Cr::Cancel, Cr::Replay, Cr::Started, Cr::NotCancelable]);
        use crate::cancel::{CancelVerdict, Window};
        each(&CancelVerdict::ALL);
        each(&[Window::Open, Window::Started, Window::Terminal]);
        use crate::wire::sume_open::{Kind as Jk, OpenStatus as Os};
        each(&[
            Os::Queued,
            Os::Processing,
            Os::Completed,
            Os::Failed,
            Os::Nsfw,
            Os::Canceled,
        ]);
        each(&[Jk::Image, Jk::Video, Jk::Lipsync, Jk::Captions]);
    }

    /// An object built pair by pair is the one `collect` builds: the last of equal keys kept.
    #[test]
    fn objects_keep_the_last_of_equal_keys() {
        let pairs = [("b", 1), ("a", 2), ("b", 3), ("c", 4), ("a", 5)]
            .map(|(k, v)| (String::from(k), json!(v)));
        let collected: Map<String, Value> = pairs.iter().cloned().collect();
        assert_eq!(object(pairs), collected);
        assert_eq!(Value::Object(collected), json!({"a": 5, "b": 3, "c": 4}));
    }

    /// Structs read member by member ([`in_order`]) read every input as their derived twins do:
    /// the same values, the same first error, defaults and skipped members alike.
    #[test]
    fn structs_read_in_order_as_derived() {
        use crate::wire::sume_open::OpenRequest;
        #[derive(Deserialize)]
        struct OpenAnswer {
            request: OpenRequest,
            #[serde(default)]
            handle: String,
            status: u16,
            #[serde(default)]
            headers: Vec<(String, String)>,
            #[serde(default)]
            body: Option<Value>,
        }
        #[derive(Deserialize)]
        #[serde(default)]
        struct Limits {
            max_bytes: usize,
            max_depth: usize,
            max_string_bytes: usize,
        }
        impl Default for Limits {
            fn default() -> Self {
                let d = crate::wire::Limits::DEFAULT;
                Limits {
                    max_bytes: d.max_bytes,
                    max_depth: d.max_depth,
                    max_string_bytes: d.max_string_bytes,
                }
            }
        }
        let show = |r: Result<String, serde_json::Error>| r.unwrap_or_else(|e| e.to_string());
        for text in [
            r#"{"request":"status","handle":"j","status":200,"headers":[["a","b"]],"body":{"x":1}}"#,
            r#"{"request":"submit","status":0,"zz":1}"#,
            r#"{"request":"cancel","status":409,"body":null}"#,
            r#"{"status":200}"#,
            r#"{"request":"submit"}"#,
            r#"{}"#,
            r#"{"request":"nope","status":"x"}"#,
            r#"{"body":1,"status":-1,"request":"status"}"#,
            r#"{"handle":5}"#,
            r#"{"headers":{"a":"b"},"request":"submit","status":1}"#,
            r#"null"#,
            r#""x""#,
        ] {
            let v: Value = serde_json::from_str(text).unwrap();
            let hand = serde_json::from_value::<crate::wire::sume_open::OpenAnswer>(v.clone())
                .map(|a| format!("{:?}", (a.request, a.handle, a.status, a.headers, a.body)));
            let derived = serde_json::from_value::<OpenAnswer>(v.clone())
                .map(|a| format!("{:?}", (a.request, a.handle, a.status, a.headers, a.body)));
            assert_eq!(as_derived(show(hand), &v), show(derived), "{text}");
        }
        for text in [
            r#"{"max_bytes":10,"max_depth":2,"max_string_bytes":3}"#,
            r#"{"max_depth":2,"other":true}"#,
            r#"{}"#,
            r#"{"max_bytes":-1,"max_depth":"x"}"#,
            r#"{"max_string_bytes":1.5}"#,
            r#"[]"#,
            r#"7"#,
        ] {
            let v: Value = serde_json::from_str(text).unwrap();
            let hand = serde_json::from_value::<crate::wire::Limits>(v.clone())
                .map(|l| format!("{:?}", (l.max_bytes, l.max_depth, l.max_string_bytes)));
            let derived = serde_json::from_value::<Limits>(v.clone())
                .map(|l| format!("{:?}", (l.max_bytes, l.max_depth, l.max_string_bytes)));
            if text == "[]" {
                // The derive's array form, which no writer makes: refused here.
                assert_eq!(show(hand), "invalid type: sequence, expected struct Limits");
                continue;
            }
            assert_eq!(as_derived(show(hand), &v), show(derived), "{text}");
        }
    }

    /// The errors serde's derived reader gives, word for word, led by the refused member's name.
    #[test]
    fn errors_are_serdes() {
        assert_eq!(error::<Output>(r#"{"at":1}"#), "missing field `type`");
        assert_eq!(
            error::<Failure>(r#"{"kind":"nope"}"#),
            "unknown variant `nope`, expected one of `rpc`, `http`, `transport`"
        );
        assert_eq!(
            error::<Output>(r#"{"type":"wake_at"}"#),
            "missing field `at`"
        );
        assert_eq!(
            error::<Output>(r#"{"type":"wake_at","at":"x"}"#),
            "at: invalid type: string \"x\", expected u64"
        );
        assert_eq!(
            error::<Output>(r#""idle""#),
            "invalid type: string \"idle\", expected internally tagged enum Output"
        );
        assert_eq!(
            error::<Output>(r#"{"type":1}"#),
            "invalid type: integer `1`, expected variant identifier"
        );
        // `call` defaults only when absent, as `#[serde(default)]` does.
        assert_eq!(
            error::<Output>(r#"{"type":"ask_user","key":"k","request":1,"call":null}"#),
            "call: invalid type: null, expected a boolean"
        );
        assert_eq!(
            error::<Output>(r#"{"type":"ask_user","key":"k"}"#),
            "missing field `request`"
        );
    }
}
