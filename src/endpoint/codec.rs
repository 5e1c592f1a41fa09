//! The client's wire mapping, written once: a JSON-RPC answer to a request the client sent becomes
//! a tracker [`Input`] (with the shape rules the peer broke), and a tracker [`Request`] becomes
//! the JSON-RPC request and HTTP headers to send. Both MCP revisions.
//!
//! Every host (the wasm exports, `longcall check`, the Node adapters, Rust programs) reads answers
//! through these functions, so an answer means the same thing everywhere.

use alloc::string::String;
use alloc::vec::Vec;

use serde::Serialize;
use serde_json::{json, Map, Value};

use crate::tracker::{Failure, Input, Request, RequestKind};
use crate::view::RpcError;
use crate::wire::task::call_tool_result;
use crate::wire::{mcp2025, mcp2026, Answer, Id, Message};
use crate::{Error, Json, Model, Violation};

/// Which request an answer belongs to: the creating `tools/call` or a tracker request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Asked {
    /// The creating `tools/call`.
    Call,
    /// A tracker request.
    Tracker(RequestKind),
}

impl Asked {
    /// Reads `"call" | "get" | "cancel" | "update" | "fetch_result"`.
    pub fn parse(s: &str) -> Result<Asked, Error> {
        Ok(match s {
            "call" => Asked::Call,
            "get" => Asked::Tracker(RequestKind::Get),
            "cancel" => Asked::Tracker(RequestKind::Cancel),
            "update" => Asked::Tracker(RequestKind::Update),
            "fetch_result" => Asked::Tracker(RequestKind::FetchResult),
            "continue_call" => Asked::Tracker(RequestKind::ContinueCall),
            _ => {
                return Err(Error::invalid_input(
                    "request",
                    "expected \"call\", \"get\", \"cancel\", \"update\" or \"fetch_result\"",
                ))
            }
        })
    }
}

/// What `readAnswer` returns.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ReadAnswer {
    /// The id of the answer (echoed, for matching).
    pub id: Id,
    /// The tracker input.
    pub input: Input,
    /// Shape rules the peer broke in this answer.
    pub violations: Vec<Violation>,
}

/// What `buildRequest` / `buildCall` return.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Built {
    /// The JSON-RPC request.
    pub message: Value,
    /// HTTP headers to send with it (Streamable HTTP).
    pub headers: Map<String, Value>,
}

fn task_model(model: Model) -> Result<Model, Error> {
    if model.is_task() {
        Ok(model)
    } else {
        Err(Error::WrongModel {
            expected: Model::Task2026,
            got: model,
        })
    }
}

fn rpc_failed(request: RequestKind, error: RpcError) -> Input {
    Input::RequestFailed {
        request,
        failure: Failure::Rpc { error },
    }
}

fn not_a_response() -> Error {
    Error::Malformed {
        what: "JSON-RPC answer",
        reason: "expected a response (result or error), got a request or notification".into(),
    }
}

/// Reads the answer `message` to the request `asked` as a tracker input.
///
/// Fatal problems (not a response, a wrong model, an unreadable task) are errors; shape problems
/// that still leave a meaning are in [`ReadAnswer::violations`].
pub fn read_answer(model: Model, asked: Asked, message: &Message) -> Result<ReadAnswer, Error> {
    let model = task_model(model)?;
    // E-8: the MRTR continuation is a tools/call: its answer reads as the call's.
    let asked = match asked {
        Asked::Tracker(RequestKind::ContinueCall) => Asked::Call,
        other => other,
    };
    let (id, result, error) = match message {
        Message::Response { id, result } => (id.clone(), Some(result), None),
        Message::Error { id, error } => (id.clone(), None, Some(error.clone())),
        _ => return Err(not_a_response()),
    };
    let mut violations = Vec::new();
    let input = match (asked, result, error) {
        (Asked::Call, _, Some(error)) => Input::CallError { error },
        (Asked::Call, Some(r), None) => match model {
            Model::Task2026 => {
                // E-4: a 2025 `CreateTaskResult` is no tool result: read as one, the call
                // would settle `succeeded` while the task it made runs on unwatched.
                if r.get("resultType").is_none()
                    && r.get("task").is_some_and(|t| t.get("taskId").is_some())
                {
                    return Err(Error::Malformed {
                        what: "tools/call answer",
                        reason: "a 2025 CreateTaskResult ({\"task\": ...}) answered a 2026 tools/call: the server speaks the 2025 wire, and the task it made is not watched".into(),
                    });
                }
                let p = mcp2026::read_tools_call(r)?;
                violations = p.violations;
                match p.value {
                    mcp2026::CallAnswer::Task(task) => Input::TaskCreated { task: *task },
                    mcp2026::CallAnswer::Result(result) => Input::CallResult { result },
                    mcp2026::CallAnswer::InputRequired {
                        input_requests,
                        request_state,
                    } => Input::CallInputRequired {
                        input_requests,
                        request_state: request_state.map(Json::from),
                    },
                }
            }
            _ => {
                if r.get("task").is_some() {
                    let p = mcp2025::read_create(r)?;
                    violations = p.violations;
                    Input::TaskCreated { task: p.value }
                } else {
                    Input::CallResult {
                        result: call_tool_result(r, &mut violations),
                    }
                }
            }
        },
        (
            Asked::Tracker(k @ (RequestKind::Get | RequestKind::Update | RequestKind::FetchResult)),
            _,
            Some(error),
        ) => rpc_failed(k, error),
        (Asked::Tracker(RequestKind::Get), Some(r), None) => {
            let p = if model == Model::Task2026 {
                mcp2026::read_get(r)?
            } else {
                mcp2025::read_get(r)?
            };
            violations = p.violations;
            Input::TaskPolled { task: p.value }
        }
        (Asked::Tracker(RequestKind::Cancel), _, _) => {
            let answer = if model == Model::Task2026 {
                if let Message::Response { result, .. } = message {
                    if result.get("taskId").is_none() {
                        violations = mcp2026::read_ack(result)?.violations;
                    }
                }
                mcp2026::cancel_answer(message)?
            } else {
                if let Message::Response { result, .. } = message {
                    if result.get("taskId").is_some() {
                        violations = mcp2025::read_cancel(result)?.violations;
                    }
                }
                mcp2025::cancel_answer(message)?
            };
            Input::CancelAnswered { answer }
        }
        (Asked::Tracker(RequestKind::Update), Some(r), None) => {
            if model != Model::Task2026 {
                return Err(Error::invalid_input(
                    "request",
                    "tasks/update exists only in the 2026 revision",
                ));
            }
            violations = mcp2026::read_ack(r)?.violations;
            Input::UpdateAcked
        }
        (Asked::Tracker(RequestKind::FetchResult), Some(_), None) => {
            if model != Model::Task2025 {
                return Err(Error::invalid_input(
                    "request",
                    "tasks/result exists only in the 2025 revision",
                ));
            }
            match mcp2025::read_task_result(message)? {
                Answer::Result(p) => {
                    violations = p.violations;
                    Input::ResultFetched {
                        result: p.value.result,
                    }
                }
                Answer::Error(error) => rpc_failed(RequestKind::FetchResult, error),
            }
        }
        (_, None, None) | (Asked::Tracker(RequestKind::ContinueCall), _, _) => {
            return Err(not_a_response())
        }
    };
    Ok(ReadAnswer {
        id,
        input,
        violations,
    })
}

/// Reads `result`, the `result` member of a successful answer to `asked`, as an SDK client hands
/// it over once it has taken the JSON-RPC envelope off (`client.request(...)` in the TypeScript
/// SDK): exactly what [`read_answer`] makes of the whole answer, with the id `null`.
///
/// ```
/// use longcall::endpoint::{read_result, Asked};
/// use longcall::tracker::{Input, RequestKind};
/// use longcall::Model;
///
/// let result = serde_json::json!({"taskId": "t1", "status": "working", "ttl": 60000,
///     "createdAt": "2026-11-29T15:01:16.107Z", "lastUpdatedAt": "2026-11-29T15:01:16.107Z",
///     "pollInterval": 250});
/// let read = read_result(Model::Task2025, Asked::Tracker(RequestKind::Get), result).unwrap();
/// let Input::TaskPolled { task } = read.input else { panic!() };
/// assert_eq!(task.poll_interval_ms, Some(250));
/// ```
pub fn read_result(model: Model, asked: Asked, result: Value) -> Result<ReadAnswer, Error> {
    read_answer(
        model,
        asked,
        &Message::Response {
            id: Id::Null,
            result,
        },
    )
}

/// Reads a task status notification (`notifications/tasks` in 2026, `notifications/tasks/status`
/// in 2025) as a [`Input::TaskNotified`]; `Ok(None)` for a notification that is not about tasks.
pub fn read_notification(model: Model, message: &Message) -> Result<Option<ReadAnswer>, Error> {
    let model = task_model(model)?;
    let Message::Notification { method, params } = message else {
        return Err(Error::Malformed {
            what: "JSON-RPC notification",
            reason: "expected a notification".into(),
        });
    };
    let wanted = if model == Model::Task2026 {
        "notifications/tasks"
    } else {
        "notifications/tasks/status"
    };
    if method != wanted {
        return Ok(None);
    }
    let empty = Value::Null;
    let params = params.as_ref().unwrap_or(&empty);
    let p = if model == Model::Task2026 {
        mcp2026::read_notification(params)?
    } else {
        mcp2025::read_notification(params)?
    };
    Ok(Some(ReadAnswer {
        id: Id::Null,
        input: Input::TaskNotified { task: p.value },
        violations: p.violations,
    }))
}

fn headers(model: Model, method: &str, name: Option<&str>) -> Map<String, Value> {
    let mut h = Map::new();
    if model == Model::Task2026 {
        for (k, v) in mcp2026::http_headers(method, name.unwrap_or("")) {
            if k == "Mcp-Name" && name.is_none() {
                continue;
            }
            h.insert(k.into(), Value::String(v));
        }
    } else {
        h.insert(
            "MCP-Protocol-Version".into(),
            Value::String(mcp2025::PROTOCOL_VERSION.into()),
        );
    }
    h
}

/// The JSON-RPC request (and HTTP headers) for a tracker request.
pub fn build_request(model: Model, request: &Request, id: Id) -> Result<Built, Error> {
    let model = task_model(model)?;
    let v26 = model == Model::Task2026;
    let (handle, message) = match request {
        Request::Get { handle } => (
            handle,
            if v26 {
                mcp2026::get_request(id, handle)
            } else {
                mcp2025::get_request(id, handle)
            },
        ),
        Request::Cancel { handle, .. } => (
            handle,
            if v26 {
                mcp2026::cancel_request(id, handle)
            } else {
                mcp2025::cancel_request(id, handle)
            },
        ),
        Request::Update { handle, responses } => {
            if !v26 {
                return Err(Error::invalid_input(
                    "request",
                    "tasks/update exists only in the 2026 revision",
                ));
            }
            (
                handle,
                mcp2026::update_request(id, handle, answers(responses)),
            )
        }
        Request::ContinueCall { .. } => return Err(Error::invalid_input(
            "request",
            "a continuation tools/call needs the tool and its arguments: use build_continuation",
        )),
        Request::FetchResult { handle } => {
            if v26 {
                return Err(Error::invalid_input(
                    "request",
                    "tasks/result exists only in the 2025 revision",
                ));
            }
            (handle, mcp2025::result_request(id, handle))
        }
    };
    let method = match &message {
        Message::Request { method, .. } => method.clone(),
        _ => String::new(),
    };
    Ok(Built {
        headers: headers(model, &method, Some(handle)),
        message: message.to_value(),
    })
}

/// The JSON-RPC response that answers a request of the server's (I-10: a 2025 task's
/// `elicitation/create`), with the user's answer as its result.
pub(crate) fn build_reply(model: Model, id: Id, result: Value) -> Built {
    Built {
        headers: headers(model, "", None),
        message: Message::Response { id, result }.to_value(),
    }
}

/// The creating `tools/call` (2026: capability `_meta`, `Mcp-Name: <tool>`; 2025:
/// `params.task {ttl?}`).
pub fn build_call(
    model: Model,
    id: Id,
    name: &str,
    arguments: Value,
    ttl_ms: Option<u64>,
) -> Result<Built, Error> {
    build_tools_call(model, id, name, arguments, ttl_ms, true)
}

/// [`build_call`], or with `as_task` false a 2025 `tools/call` that asks for no task (E-64: a
/// tool listed `taskSupport: forbidden`); it has no TTL to ask.
pub(crate) fn build_tools_call(
    model: Model,
    id: Id,
    name: &str,
    arguments: Value,
    ttl_ms: Option<u64>,
    as_task: bool,
) -> Result<Built, Error> {
    let model = task_model(model)?;
    if name.is_empty() {
        // No server has a tool without a name, and `Mcp-Name` would go out empty.
        return Err(Error::invalid_input("name", "a tool name is not empty"));
    }
    if !(arguments.is_object() || arguments.is_null()) {
        return Err(Error::invalid_input("arguments", "expected an object"));
    }
    // M-18: the 2026 tools/call has no TTL to ask; one given is refused, never dropped.
    if model == Model::Task2026 && ttl_ms.is_some() {
        return Err(Error::invalid_input(
            "ttl_ms",
            "a 2026 tools/call asks no TTL (the server names the task's ttlMs); only 2025 asks one",
        ));
    }
    // M-22: a task kept for no time at all could be gone before its first poll.
    if ttl_ms == Some(0) {
        return Err(Error::invalid_input(
            "ttl_ms",
            "a TTL of 0 ms lets the server delete the task before it is polled; ask for one long enough to watch it, or none",
        ));
    }
    let arguments = if arguments.is_null() {
        json!({})
    } else {
        arguments
    };
    if !as_task && ttl_ms.is_some() {
        return Err(Error::invalid_input(
            "ttl_ms",
            "this tool does not run as a task (taskSupport forbidden): a plain tools/call asks no TTL",
        ));
    }
    let message = if model == Model::Task2026 {
        mcp2026::tools_call_request(id, name, arguments)
    } else if as_task {
        mcp2025::tools_call_request(id, name, arguments, ttl_ms)
    } else {
        mcp2025::tools_call_plain_request(id, name, arguments)
    };
    Ok(Built {
        headers: headers(model, "tools/call", Some(name)),
        message: message.to_value(),
    })
}

/// The 2026 MRTR continuation `tools/call` for [`Request::ContinueCall`]: the same tool and
/// arguments, with `inputResponses` and the server's `requestState`.
pub fn build_continuation(
    id: Id,
    name: &str,
    arguments: Value,
    request: &Request,
) -> Result<Built, Error> {
    let Request::ContinueCall {
        responses,
        request_state,
    } = request
    else {
        return Err(Error::invalid_input(
            "request",
            "expected a continue_call request",
        ));
    };
    let map = answers(responses);
    let arguments = if arguments.is_null() {
        json!({})
    } else {
        arguments
    };
    let message = mcp2026::continue_call_request(
        id,
        name,
        arguments,
        map,
        request_state.as_ref().map(|s| s.as_value().clone()),
    );
    Ok(Built {
        headers: headers(Model::Task2026, "tools/call", Some(name)),
        message: message.to_value(),
    })
}

/// The `inputResponses` object of `tasks/update` and of the MRTR continuation: key -> answer.
fn answers(responses: &[(String, Json)]) -> Map<String, Value> {
    crate::tagged::object(
        responses
            .iter()
            .map(|(k, v)| (k.clone(), v.as_value().clone())),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cancel::CancelAnswer;
    use crate::status::TaskStatus;
    use alloc::string::ToString;
    use alloc::vec;

    fn msg(s: &str) -> Message {
        Message::parse(s.as_bytes()).unwrap()
    }

    #[test]
    fn create_2026_and_2025() {
        let r = read_answer(Model::Task2026, Asked::Call, &msg(r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"task","taskId":"t","status":"working","createdAt":"2026-01-01T00:00:00Z","lastUpdatedAt":"2026-01-01T00:00:00Z","ttlMs":null,"pollIntervalMs":200}}"#)).unwrap();
        assert!(
            matches!(r.input, Input::TaskCreated { ref task } if task.poll_interval_ms == Some(200))
        );
        assert!(r.violations.is_empty());
        let r = read_answer(Model::Task2025, Asked::Call, &msg(r#"{"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"t","status":"working","createdAt":"2026-01-01T00:00:00Z","lastUpdatedAt":"2026-01-01T00:00:00Z","ttl":60000,"pollInterval":250}}}"#)).unwrap();
        assert!(
            matches!(r.input, Input::TaskCreated { ref task } if task.poll_interval_ms == Some(250))
        );
        let r = read_answer(
            Model::Task2025,
            Asked::Call,
            &msg(r#"{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":true}}"#),
        )
        .unwrap();
        assert!(matches!(r.input, Input::CallResult { ref result } if result.is_error));
        assert!(r.violations.is_empty());
    }

    /// Rule E-4: a 2025 `CreateTaskResult` answering a 2026 `tools/call` is no success; it is
    /// unreadable, so the call is unanswered (a task may run) and the reason names the wire.
    #[test]
    fn a_2025_create_answering_a_2026_call_is_no_result() {
        let text = r#"{"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"t","status":"working","createdAt":"2026-01-01T00:00:00Z","lastUpdatedAt":"2026-01-01T00:00:00Z","ttl":60000}}}"#;
        let e = read_answer(Model::Task2026, Asked::Call, &msg(text)).unwrap_err();
        assert_eq!(e.code(), "malformed");
        assert!(
            e.to_string().contains("the server speaks the 2025 wire"),
            "{e}"
        );
        // A tool whose own result has a `task` member of another shape is still a result.
        let own = r#"{"jsonrpc":"2.0","id":1,"result":{"content":[],"task":"paint"}}"#;
        let r = read_answer(Model::Task2026, Asked::Call, &msg(own)).unwrap();
        assert!(matches!(r.input, Input::CallResult { .. }));
    }

    /// M-17: a direct `tools/call` answer is a `CallToolResult` in both revisions, one reader:
    /// without its `content` list it still reads as what it says, with a violation, and a
    /// task's bare fields are named as such; a non-boolean `isError` is a violation too.
    #[test]
    fn call_results_without_content_are_violations() {
        let bare_task = r#"{"taskId":"t1","status":"working","ttl":60000,"createdAt":"2025-01-01T00:00:00Z","lastUpdatedAt":"2025-01-01T00:00:00Z"}"#;
        for model in [Model::Task2025, Model::Task2026] {
            let read = |result: &str| {
                let text = alloc::format!(r#"{{"jsonrpc":"2.0","id":1,"result":{result}}}"#);
                read_answer(model, Asked::Call, &msg(&text)).unwrap()
            };
            let r = read(bare_task);
            assert!(matches!(r.input, Input::CallResult { ref result } if !result.is_error));
            assert_eq!(r.violations.len(), 1, "{model:?}");
            assert_eq!(r.violations[0].rule, crate::violation::Rule::MissingField);
            assert!(
                r.violations[0].detail.contains("taskId and status"),
                "{model:?}"
            );
            let r = read(r#"{"isError":true}"#);
            assert!(matches!(r.input, Input::CallResult { ref result } if result.is_error));
            assert_eq!(r.violations[0].detail, "CallToolResult has no content list");
            let r = read(r#"{"content":[],"isError":"yes"}"#);
            assert!(matches!(r.input, Input::CallResult { ref result } if !result.is_error));
            assert_eq!(
                r.violations[0].detail, "isError is not a boolean",
                "{model:?}"
            );
            assert!(read(r#"{"content":[{"type":"text","text":"ok"}]}"#)
                .violations
                .is_empty());
        }
    }

    #[test]
    fn cancel_and_errors() {
        let r = read_answer(
            Model::Task2025,
            Asked::Tracker(RequestKind::Cancel),
            &msg(r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"x"}}"#),
        )
        .unwrap();
        assert_eq!(
            r.input,
            Input::CancelAnswered {
                answer: CancelAnswer::RpcError { code: -32602 }
            }
        );
        let r = read_answer(
            Model::Task2026,
            Asked::Tracker(RequestKind::Cancel),
            &msg(r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete"}}"#),
        )
        .unwrap();
        assert_eq!(
            r.input,
            Input::CancelAnswered {
                answer: CancelAnswer::Ack
            }
        );
        let r = read_answer(Model::Task2025, Asked::Tracker(RequestKind::Cancel), &msg(r#"{"jsonrpc":"2.0","id":1,"result":{"taskId":"t","status":"cancelled","createdAt":"2026-01-01T00:00:00Z","lastUpdatedAt":"2026-01-01T00:00:00Z","ttl":1}}"#)).unwrap();
        assert_eq!(
            r.input,
            Input::CancelAnswered {
                answer: CancelAnswer::Task {
                    status: TaskStatus::Cancelled
                }
            }
        );
        let r = read_answer(
            Model::Task2026,
            Asked::Tracker(RequestKind::Get),
            &msg(r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"x"}}"#),
        )
        .unwrap();
        assert!(matches!(
            r.input,
            Input::RequestFailed {
                request: RequestKind::Get,
                ..
            }
        ));
        assert!(read_answer(
            Model::Job,
            Asked::Call,
            &msg(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#)
        )
        .is_err());
        assert!(read_answer(
            Model::Task2026,
            Asked::Call,
            &msg(r#"{"jsonrpc":"2.0","method":"x"}"#)
        )
        .is_err());
    }

    #[test]
    fn requests_and_headers() {
        let b = build_request(
            Model::Task2026,
            &Request::Get {
                handle: "t1".into(),
            },
            Id::Number(4),
        )
        .unwrap();
        assert_eq!(b.headers["Mcp-Name"], "t1");
        assert_eq!(b.headers["Mcp-Method"], "tasks/get");
        assert!(b.message["params"]["_meta"][mcp2026::CLIENT_CAPABILITIES_META].is_object());
        let b = build_request(
            Model::Task2025,
            &Request::FetchResult {
                handle: "t1".into(),
            },
            Id::Number(4),
        )
        .unwrap();
        assert_eq!(b.message["method"], "tasks/result");
        assert!(build_request(
            Model::Task2025,
            &Request::Update {
                handle: "t".into(),
                responses: vec![]
            },
            Id::Null
        )
        .is_err());
        let b = build_call(Model::Task2025, Id::Number(1), "x", Value::Null, Some(5)).unwrap();
        assert_eq!(b.message["params"]["task"]["ttl"], 5);
        let e = build_call(Model::Task2026, Id::Number(1), "", Value::Null, None).unwrap_err();
        assert_eq!(e.message(), "invalid input: name: a tool name is not empty");
        // Rule M-22: a TTL of 0 is refused before anything is sent.
        let e = build_call(Model::Task2025, Id::Number(1), "x", Value::Null, Some(0)).unwrap_err();
        assert_eq!(e.code(), "invalid_input");
        assert!(e.to_string().contains("TTL of 0 ms"), "{e}");
        // Rule M-18: a TTL for a 2026 call is refused, not dropped.
        let e = build_call(Model::Task2026, Id::Number(1), "x", Value::Null, Some(5)).unwrap_err();
        assert_eq!(e.code(), "invalid_input");
        assert!(e
            .message()
            .starts_with("invalid input: ttl_ms: a 2026 tools/call asks no TTL"));
    }
}
