//! Shared harness for the longcall fuzz targets: structured inputs built with `arbitrary` and the
//! step that feeds them to a tracker. The tracker under its invariants ([`Checked`]), the
//! simulated network ([`Driver`]) and the reference server ([`TaskServer`]) are the
//! `longcall-testkit` crate's, shared with the core's tests.

use arbitrary::Arbitrary;
use longcall::cancel::{CancelAnswer, JobErrorCode};
use longcall::poll::{Jitter, PollPolicy};
use longcall::status::{JobStatus, TaskStatus};
use longcall::tracker::{Failure, Input, RequestKind, TrackerConfig};
use longcall::view::{InputRequest, JobView, RpcError, TaskView, ToolResult};
use longcall::{Model, Status};
use serde_json::json;

pub use longcall_testkit::{transport, Checked, Driver, Shadow, SimServer, TaskServer, HANDLE};

/// Picks a model from a byte.
pub fn model_of(b: u8) -> Model {
    match b % 3 {
        0 => Model::Task2026,
        1 => Model::Task2025,
        _ => Model::Job,
    }
}

/// Picks a status from a byte: mostly of the model, sometimes a foreign one (a typed error).
pub fn status_of(model: Model, b: u8) -> Status {
    let own: &[Status] = if model.is_task() {
        &Status::TASK
    } else {
        &Status::JOB
    };
    if b >= 240 {
        Status::ALL[usize::from(b) % Status::ALL.len()]
    } else {
        own[usize::from(b) % own.len()]
    }
}

/// A small tracker configuration (kept small so deadlines, max polls and floors are all hit).
#[derive(Arbitrary, Debug, Clone)]
pub struct Config {
    pub initial: u8,
    pub mult: u8,
    pub cap_extra: u16,
    pub jitter: u8,
    pub min_interval: u8,
    pub max_polls: Option<u8>,
    pub seed: u64,
    pub deadline: Option<u16>,
}

impl Config {
    pub fn build(&self) -> TrackerConfig {
        let initial = u64::from(self.initial).max(1) * 10;
        let poll = PollPolicy {
            initial_ms: initial,
            multiplier_percent: 100 + u32::from(self.mult),
            cap_ms: initial + u64::from(self.cap_extra),
            jitter: match self.jitter % 4 {
                0 => Jitter::None,
                1 => Jitter::Full,
                2 => Jitter::Equal,
                _ => Jitter::Decorrelated,
            },
            min_interval_ms: (u64::from(self.min_interval) * 5).clamp(1, initial),
            max_polls: self.max_polls.map(|m| u32::from(m).max(1)),
            // A spare bit of the jitter byte, so existing corpora keep their meaning.
            follow_server_interval: self.jitter & 4 == 0,
        };
        TrackerConfig {
            poll,
            seed: self.seed,
            deadline_ms: self.deadline.map(|d| u64::from(d) * 10),
        }
    }
}

/// What a task or job observation carries.
#[derive(Arbitrary, Debug, Clone)]
pub struct Obs {
    pub status: u8,
    pub poll_interval: Option<u16>,
    pub ttl: Option<u16>,
    pub keys: u8,
    pub result: Option<bool>,
    pub error: bool,
    pub other_id: bool,
}

impl Obs {
    pub fn task(&self, model: Model) -> TaskView {
        let status = status_of(model, self.status);
        let mut input_requests = Vec::new();
        if status == Status::InputRequired {
            for k in 0..4u8 {
                if self.keys & (1 << k) != 0 {
                    input_requests.push(InputRequest {
                        key: format!("k{k}"),
                        request: json!({"q": k}).into(),
                    });
                }
            }
        }
        TaskView {
            task_id: if self.other_id {
                "other".into()
            } else {
                HANDLE.into()
            },
            status,
            status_message: None,
            created_at_ms: Some(0),
            last_updated_at_ms: None,
            ttl_ms: longcall::view::Ttl::stated(self.ttl.map(u64::from)),
            poll_interval_ms: self.poll_interval.map(u64::from),
            input_requests,
            result: self.result.map(|is_error| ToolResult {
                is_error,
                value: json!({}).into(),
            }),
            error: self.error.then(|| RpcError {
                code: -32603,
                message: String::new(),
                data: None,
            }),
        }
    }

    pub fn job(&self, model: Model) -> JobView {
        JobView {
            id: if self.other_id {
                "other".into()
            } else {
                HANDLE.into()
            },
            status: status_of(model, self.status),
            result: self.result.map(|_| json!({"ok": true}).into()),
            error: self.error.then(|| json!({"code": "x"}).into()),
        }
    }
}

/// A cancel answer (any model's shape, so wrong-model answers are exercised too).
#[derive(Arbitrary, Debug, Clone)]
pub enum Answer {
    Ack,
    Task(u8),
    Rpc(bool),
    Job(u8),
    JobError { which: u8, cancelable: Option<bool> },
    NoAnswer,
}

impl Answer {
    pub fn build(&self, model: Model) -> CancelAnswer {
        match self {
            Answer::Ack => CancelAnswer::Ack,
            // A cancel answer's status is typed by its kind: only the kind's statuses exist.
            Answer::Task(s) => CancelAnswer::Task {
                status: TaskStatus::ALL[usize::from(*s) % TaskStatus::ALL.len()],
            },
            Answer::Rpc(unknown) => CancelAnswer::RpcError {
                code: if *unknown { -32602 } else { -32603 },
            },
            Answer::Job(s) => CancelAnswer::Job {
                status: JobStatus::ALL[usize::from(*s) % JobStatus::ALL.len()],
            },
            Answer::JobError { which, cancelable } => {
                let (http_status, code) = match which % 5 {
                    0 => (409, JobErrorCode::JobGenerationAlreadyStarted),
                    1 => (409, JobErrorCode::JobNotCancelable),
                    2 => (404, JobErrorCode::NotFound),
                    3 => (429, JobErrorCode::RateLimitExceeded),
                    _ => (500, JobErrorCode::Other),
                };
                let _ = model;
                CancelAnswer::JobError {
                    http_status,
                    code,
                    cancelable: *cancelable,
                }
            }
            Answer::NoAnswer => CancelAnswer::NoAnswer,
        }
    }
}

/// A failure of a request.
#[derive(Arbitrary, Debug, Clone)]
pub enum Fail {
    Rpc(bool),
    Http {
        status: u8,
        retry_after: Option<u16>,
    },
    Transport,
}

impl Fail {
    pub fn build(&self) -> Failure {
        match self {
            Fail::Rpc(unknown) => Failure::Rpc {
                error: RpcError {
                    code: if *unknown { -32602 } else { -32603 },
                    message: String::new(),
                    data: None,
                },
            },
            Fail::Http {
                status,
                retry_after,
            } => {
                let (status, code) = match status % 5 {
                    0 => (429, Some("rate_limit_exceeded")),
                    1 => (404, Some("not_found")),
                    2 => (409, Some("job_generation_already_started")),
                    3 => (503, None),
                    _ => (409, Some("job_not_cancelable")),
                };
                Failure::Http {
                    status,
                    code: code.map(String::from),
                    retry_after_ms: retry_after.map(u64::from),
                }
            }
            Fail::Transport => Failure::Transport,
        }
    }
}

/// One abstract step.
#[derive(Arbitrary, Debug, Clone)]
pub enum Op {
    Create(Obs),
    Poll(Obs),
    Notify(Obs),
    CallResult(bool),
    CallError,
    CreateUnanswered,
    SubmitRefused(u16),
    Fetched(bool),
    CancelPressed,
    CancelAnswered(Answer),
    UpdateAcked,
    Failed(u8, Fail),
    InputAnswered(u8),
    StopWatching,
    /// Time passes by this much, then `handle_timeout`.
    Advance(u16),
    /// Jump to the last `WakeAt`, then `handle_timeout`.
    Wake,
    /// Save and restore the tracker (the snapshot target checks that this changes nothing).
    Snapshot,
}

impl Op {
    /// The `Input` this op stands for (None for time and snapshot ops).
    pub fn input(&self, model: Model) -> Option<Input> {
        Some(match self {
            Op::Create(o) if model == Model::Job => Input::JobCreated { job: o.job(model) },
            Op::Create(o) => Input::TaskCreated {
                task: o.task(model),
            },
            Op::Poll(o) if model == Model::Job => Input::JobPolled { job: o.job(model) },
            Op::Poll(o) => Input::TaskPolled {
                task: o.task(model),
            },
            Op::Notify(o) => Input::TaskNotified {
                task: o.task(model),
            },
            Op::CallResult(is_error) => Input::CallResult {
                result: ToolResult {
                    is_error: *is_error,
                    value: json!(1).into(),
                },
            },
            Op::CallError => Input::CallError {
                error: RpcError {
                    code: -32603,
                    message: String::new(),
                    data: None,
                },
            },
            Op::CreateUnanswered => Input::CreateUnanswered,
            Op::SubmitRefused(http_status) => Input::SubmitRefused {
                http_status: *http_status,
                error: None,
            },
            Op::Fetched(is_error) => Input::ResultFetched {
                result: ToolResult {
                    is_error: *is_error,
                    value: json!(2).into(),
                },
            },
            Op::CancelPressed => Input::CancelPressed,
            Op::CancelAnswered(a) => Input::CancelAnswered {
                answer: a.build(model),
            },
            Op::UpdateAcked => Input::UpdateAcked,
            Op::Failed(r, f) => Input::RequestFailed {
                request: match r % 4 {
                    0 => RequestKind::Get,
                    1 => RequestKind::Cancel,
                    2 => RequestKind::Update,
                    _ => RequestKind::FetchResult,
                },
                failure: f.build(),
            },
            Op::InputAnswered(k) => Input::InputAnswered {
                key: format!("k{}", k % 5),
                response: json!({"a": k}).into(),
            },
            Op::StopWatching => Input::StopWatching,
            Op::Advance(_) | Op::Wake | Op::Snapshot => return None,
        })
    }
}

/// A whole tracker scenario.
#[derive(Arbitrary, Debug, Clone)]
pub struct Scenario {
    pub model: u8,
    pub config: Config,
    pub ops: Vec<Op>,
}

/// Applies one [`Op`] to a checked tracker: an input, a timeout, or (when `snapshots`) a
/// save/restore; then drains and checks the outputs.
pub trait Step {
    /// Applies `op`.
    fn step(&mut self, op: &Op, snapshots: bool);
}

impl Step for Checked {
    fn step(&mut self, op: &Op, snapshots: bool) {
        match op {
            Op::Advance(d) => self.advance(u64::from(*d)),
            Op::Wake => self.wake(),
            Op::Snapshot => {
                if snapshots {
                    self.snapshot_roundtrip();
                }
                self.drain();
            }
            _ => {
                let input = op.input(self.model).expect("an input op");
                self.feed(input);
                self.drain();
            }
        }
    }
}
