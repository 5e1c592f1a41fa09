//! Reading an [`Input`] from JSON through a flat record instead of serde's internally tagged
//! enum support, which buffers the whole value before it looks at `type`: the members are read
//! as a `serde_json::Value` object ([`crate::tagged::members`]) and each field is taken from it
//! by the `Value` reader every other path shares (much less code in WebAssembly than a derived
//! reader of the record, which also compiles an array form nobody writes).

use alloc::string::String;
use alloc::vec::Vec;

use serde::{Deserialize, Deserializer};

use super::{Failure, Input, RequestKind};
use crate::cancel::CancelAnswer;
use crate::view::{InputRequest, JobView, RpcError, TaskView, ToolResult};
use crate::Json;

#[derive(Clone, Copy)]
enum Kind {
    TaskCreated,
    CallResult,
    CallInputRequired,
    CallError,
    JobCreated,
    CreateUnanswered,
    SubmitRefused,
    TaskPolled,
    JobPolled,
    TaskNotified,
    ResultFetched,
    CancelAnswered,
    UpdateAcked,
    RequestFailed,
    CancelPressed,
    InputAnswered,
    StopWatching,
    AnswerTooLarge,
}

crate::tagged::unit_enum!(
    Kind,
    "enum Kind",
    [
        (Kind::TaskCreated, "task_created"),
        (Kind::CallResult, "call_result"),
        (Kind::CallInputRequired, "call_input_required"),
        (Kind::CallError, "call_error"),
        (Kind::JobCreated, "job_created"),
        (Kind::CreateUnanswered, "create_unanswered"),
        (Kind::SubmitRefused, "submit_refused"),
        (Kind::TaskPolled, "task_polled"),
        (Kind::JobPolled, "job_polled"),
        (Kind::TaskNotified, "task_notified"),
        (Kind::ResultFetched, "result_fetched"),
        (Kind::CancelAnswered, "cancel_answered"),
        (Kind::UpdateAcked, "update_acked"),
        (Kind::RequestFailed, "request_failed"),
        (Kind::CancelPressed, "cancel_pressed"),
        (Kind::InputAnswered, "input_answered"),
        (Kind::StopWatching, "stop_watching"),
        (Kind::AnswerTooLarge, "answer_too_large"),
    ]
);

/// Every field any input has; which ones must be present depends on `type`.
struct Flat {
    kind: Kind,
    task: Option<TaskView>,
    job: Option<JobView>,
    result: Option<ToolResult>,
    error: Option<RpcError>,
    answer: Option<CancelAnswer>,
    request: Option<RequestKind>,
    failure: Option<Failure>,
    key: Option<String>,
    response: Option<Json>,
    size: Option<u64>,
    input_requests: Option<Vec<InputRequest>>,
    request_state: Option<Json>,
    limit: Option<u64>,
    http_status: Option<u16>,
    api_error: Option<Json>,
}

fn need<T, E: serde::de::Error>(v: Option<T>, field: &'static str) -> Result<T, E> {
    v.ok_or_else(|| E::missing_field(field))
}

impl<'de> Deserialize<'de> for Input {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // Every member any input has is read and checked, whatever the `type`; which ones must
        // be present depends on it.
        let mut m = crate::tagged::members(d, "struct Flat")?;
        let kind: Kind = m.req("type")?;
        // `error` is the job API's own JSON in a refused submit, a JSON-RPC error elsewhere.
        let (error, api_error) = match kind {
            Kind::SubmitRefused => (None, m.present("error").map(Json::from)),
            _ => (m.opt("error")?, None),
        };
        let f = Flat {
            kind,
            task: m.opt("task")?,
            job: m.opt("job")?,
            result: m.opt("result")?,
            error,
            answer: m.opt("answer")?,
            request: m.opt("request")?,
            failure: m.opt("failure")?,
            key: m.opt("key")?,
            response: m.present("response").map(Json::from),
            size: m.opt("size")?,
            input_requests: m.opt("input_requests")?,
            request_state: m.present("request_state").map(Json::from),
            limit: m.opt("limit")?,
            http_status: m.opt("http_status")?,
            api_error,
        };
        Ok(match f.kind {
            Kind::TaskCreated => Input::TaskCreated {
                task: need(f.task, "task")?,
            },
            Kind::CallResult => Input::CallResult {
                result: need(f.result, "result")?,
            },
            Kind::CallInputRequired => Input::CallInputRequired {
                input_requests: need(f.input_requests, "input_requests")?,
                request_state: f.request_state,
            },
            Kind::CallError => Input::CallError {
                error: need(f.error, "error")?,
            },
            Kind::JobCreated => Input::JobCreated {
                job: need(f.job, "job")?,
            },
            Kind::CreateUnanswered => Input::CreateUnanswered,
            Kind::SubmitRefused => Input::SubmitRefused {
                http_status: need(f.http_status, "http_status")?,
                error: f.api_error,
            },
            Kind::TaskPolled => Input::TaskPolled {
                task: need(f.task, "task")?,
            },
            Kind::JobPolled => Input::JobPolled {
                job: need(f.job, "job")?,
            },
            Kind::TaskNotified => Input::TaskNotified {
                task: need(f.task, "task")?,
            },
            Kind::ResultFetched => Input::ResultFetched {
                result: need(f.result, "result")?,
            },
            Kind::CancelAnswered => Input::CancelAnswered {
                answer: need(f.answer, "answer")?,
            },
            Kind::UpdateAcked => Input::UpdateAcked,
            Kind::RequestFailed => Input::RequestFailed {
                request: need(f.request, "request")?,
                failure: need(f.failure, "failure")?,
            },
            Kind::CancelPressed => Input::CancelPressed,
            Kind::InputAnswered => Input::InputAnswered {
                key: need(f.key, "key")?,
                response: need(f.response, "response")?,
            },
            Kind::StopWatching => Input::StopWatching,
            Kind::AnswerTooLarge => Input::AnswerTooLarge {
                request: f.request,
                size: need(f.size, "size")?,
                limit: need(f.limit, "limit")?,
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;
    use alloc::vec::Vec;
    use serde_json::json;

    /// Every input written by serde reads back equal (the flat reader is the exact inverse of the
    /// derived writer), and missing fields are errors naming the field.
    #[test]
    fn round_trips_and_names_missing_fields() {
        use crate::status::Status;
        let task = TaskView {
            task_id: "t".into(),
            status: Status::Working,
            status_message: None,
            created_at_ms: None,
            last_updated_at_ms: None,
            ttl_ms: crate::view::Ttl::Ms(5),
            poll_interval_ms: None,
            input_requests: Vec::new(),
            result: None,
            error: None,
        };
        let job = JobView {
            id: "j".into(),
            status: Status::Queued,
            result: None,
            error: None,
        };
        let result = ToolResult {
            is_error: true,
            value: json!({"isError": true}).into(),
        };
        let error = RpcError {
            code: -32602,
            message: "x".into(),
            data: None,
        };
        let inputs = [
            Input::TaskCreated { task: task.clone() },
            Input::CallResult {
                result: result.clone(),
            },
            Input::CallError {
                error: error.clone(),
            },
            Input::JobCreated { job: job.clone() },
            Input::CreateUnanswered,
            Input::SubmitRefused {
                http_status: 402,
                error: Some(json!({"code": "insufficient_credits"}).into()),
            },
            Input::SubmitRefused {
                http_status: 502,
                error: None,
            },
            Input::TaskPolled { task: task.clone() },
            Input::JobPolled { job },
            Input::TaskNotified { task },
            Input::ResultFetched { result },
            Input::CancelAnswered {
                answer: CancelAnswer::Ack,
            },
            Input::UpdateAcked,
            Input::RequestFailed {
                request: RequestKind::Get,
                failure: Failure::Rpc { error },
            },
            Input::CancelPressed,
            Input::InputAnswered {
                key: "k".into(),
                response: serde_json::Value::Null.into(),
            },
            Input::StopWatching,
        ];
        for i in inputs {
            let text = serde_json::to_string(&i).unwrap();
            assert_eq!(serde_json::from_str::<Input>(&text).unwrap(), i, "{text}");
        }
        let e = serde_json::from_str::<Input>(r#"{"type":"task_polled"}"#).unwrap_err();
        assert!(e.to_string().contains("missing field `task`"), "{e}");
        assert!(serde_json::from_str::<Input>(r#"{"type":"nope"}"#).is_err());
        assert!(serde_json::from_str::<Input>(r#"{"task":{}}"#).is_err());
    }
}
