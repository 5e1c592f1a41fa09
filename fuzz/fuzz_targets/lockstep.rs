//! Tracker against a simulated server (a small model of the rules in `docs/rules.md`, to be
//! replaced by `longcall::server` once it lands) over a network with arbitrary delays, drops and
//! reordering. Every `Checked` invariant holds throughout; at the end the network heals and, while
//! the handle is alive, the tracker must settle with exactly the server's terminal status.
#![no_main]
use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use longcall::cancel::{CancelAnswer, JobErrorCode};
use longcall::outcome::Outcome;
use longcall::poll::PollPolicy;
use longcall::tracker::{Failure, Input, Output, Request, RequestKind, TrackerConfig};
use longcall::view::{InputRequest, JobView, RpcError, TaskView, ToolResult};
use longcall::{Model, Status};
use longcall_fuzz::{model_of, Checked, Driver, SimServer, HANDLE};
use serde_json::json;

#[derive(Arbitrary, Debug)]
enum Ev {
    Deliver(u8),
    Answer(u8),
    DropRequest(u8),
    DropAnswer(u8),
    Advance(u16),
    Wake,
    ServerStep(u8),
    Press,
    AnswerUser,
    Notify,
}

#[derive(Arbitrary, Debug)]
struct Case {
    model: u8,
    seed: u64,
    interval: Option<u16>,
    events: Vec<Ev>,
}

struct Server {
    model: Model,
    status: Status,
    keys: Vec<String>,
    next_key: u32,
    interval: Option<u64>,
}

impl Server {
    fn view(&self) -> TaskView {
        TaskView {
            task_id: HANDLE.into(),
            status: self.status,
            status_message: None,
            created_at_ms: Some(0),
            last_updated_at_ms: None,
            ttl_ms: longcall::view::Ttl::Unlimited,
            poll_interval_ms: self.interval,
            input_requests: if self.status == Status::InputRequired && self.model == Model::Task2026
            {
                self.keys
                    .iter()
                    .map(|k| InputRequest {
                        key: k.clone(),
                        request: json!({}).into(),
                    })
                    .collect()
            } else {
                Vec::new()
            },
            result: (self.model == Model::Task2026 && self.status == Status::Completed).then(
                || ToolResult {
                    is_error: false,
                    value: json!(1).into(),
                },
            ),
            error: (self.model == Model::Task2026 && self.status == Status::Failed).then(|| {
                RpcError {
                    code: -32603,
                    message: String::new(),
                    data: None,
                }
            }),
        }
    }

    fn observed(&self) -> Input {
        if self.model == Model::Job {
            Input::JobPolled {
                job: JobView {
                    id: HANDLE.into(),
                    status: self.status,
                    result: None,
                    error: None,
                },
            }
        } else {
            Input::TaskPolled { task: self.view() }
        }
    }

    /// One spontaneous move along an allowed edge.
    fn step(&mut self, pick: u8) {
        use Status::*;
        let next: &[Status] = match (self.model, self.status) {
            (Model::Job, Queued) => &[Processing, Running, Canceled, Failed, Expired],
            (Model::Job, Processing | Running) => {
                &[Completed, Failed, Expired, Running, Processing]
            }
            (Model::Task2025, Working) => &[Completed, Failed, Cancelled],
            (_, Working) => &[InputRequired, Completed, Failed, Cancelled],
            (_, InputRequired) => &[Working, Completed, Failed, Cancelled],
            _ => &[],
        };
        if let Some(&s) = next.get(usize::from(pick) % next.len().max(1)) {
            if s == InputRequired {
                self.next_key += 1;
                self.keys = vec![format!("key{}", self.next_key)];
            }
            self.status = s;
        }
    }

    /// The answer to a request, or None while `tasks/result` blocks.
    fn answer(&mut self, req: &Request) -> Option<Input> {
        use Status::*;
        Some(match req {
            Request::Get { .. } => self.observed(),
            Request::Cancel { .. } => match self.model {
                Model::Task2026 => {
                    if !self.status.is_terminal() {
                        self.status = Cancelled; // this server honours the cancel at once
                    }
                    Input::CancelAnswered {
                        answer: CancelAnswer::Ack,
                    }
                }
                Model::Task2025 if self.status.is_terminal() => Input::RequestFailed {
                    request: RequestKind::Cancel,
                    failure: Failure::Rpc {
                        error: RpcError {
                            code: -32602,
                            message: String::new(),
                            data: None,
                        },
                    },
                },
                Model::Task2025 => {
                    self.status = Cancelled;
                    Input::CancelAnswered {
                        answer: CancelAnswer::Task {
                            status: longcall::status::TaskStatus::Cancelled,
                        },
                    }
                }
                Model::Job => match self.status {
                    Queued | Canceled => {
                        self.status = Canceled;
                        Input::CancelAnswered {
                            answer: CancelAnswer::Job {
                                status: longcall::status::JobStatus::Canceled,
                            },
                        }
                    }
                    Processing | Running => Input::CancelAnswered {
                        answer: CancelAnswer::JobError {
                            http_status: 409,
                            code: JobErrorCode::JobGenerationAlreadyStarted,
                            cancelable: Some(false),
                        },
                    },
                    _ => Input::CancelAnswered {
                        answer: CancelAnswer::JobError {
                            http_status: 409,
                            code: JobErrorCode::JobNotCancelable,
                            cancelable: Some(false),
                        },
                    },
                },
            },
            Request::Update { responses, .. } => {
                self.keys.retain(|k| !responses.iter().any(|(r, _)| r == k));
                if self.keys.is_empty() && self.status == InputRequired {
                    self.status = Working;
                }
                Input::UpdateAcked
            }
            Request::FetchResult { .. } => {
                if !self.status.is_terminal() {
                    return None;
                }
                match self.status {
                    Completed => Input::ResultFetched {
                        result: ToolResult {
                            is_error: false,
                            value: json!(1).into(),
                        },
                    },
                    Failed => Input::ResultFetched {
                        result: ToolResult {
                            is_error: true,
                            value: json!(1).into(),
                        },
                    },
                    // tasks/result of a cancelled task: a JSON-RPC error.
                    _ => Input::RequestFailed {
                        request: RequestKind::FetchResult,
                        failure: Failure::Rpc {
                            error: RpcError {
                                code: -32603,
                                message: String::new(),
                                data: None,
                            },
                        },
                    },
                }
            }
            // The simulated call creates its task at once: no MRTR round, no continuation.
            Request::ContinueCall { .. } => panic!("a continuation without an input round"),
        })
    }
}

impl SimServer for Server {
    fn reply(&mut self, req: &Request) -> Option<Input> {
        self.answer(req)
    }
}

fuzz_target!(|c: Case| {
    let model = model_of(c.model);
    let config = TrackerConfig {
        poll: PollPolicy::default(),
        seed: c.seed,
        deadline_ms: None,
    };
    let Some(d) = Checked::new(model, config) else {
        return;
    };
    let interval = c.interval.map(u64::from);
    let srv = Server {
        model,
        status: if model == Model::Job {
            Status::Queued
        } else {
            Status::Working
        },
        keys: Vec::new(),
        next_key: 0,
        interval,
    };
    let mut w = Driver::new(d, srv);
    let created = if model == Model::Job {
        Input::JobCreated {
            job: JobView {
                id: HANDLE.into(),
                status: Status::Queued,
                result: None,
                error: None,
            },
        }
    } else {
        Input::TaskCreated { task: w.srv.view() }
    };
    w.feed(created);
    for ev in c.events.iter().take(300) {
        match *ev {
            Ev::Deliver(i) => {
                w.deliver(usize::from(i));
            }
            Ev::Answer(i) => {
                w.answer(usize::from(i));
            }
            Ev::DropRequest(i) => w.drop_request(usize::from(i)),
            Ev::DropAnswer(i) => w.drop_answer(usize::from(i)),
            Ev::Advance(dt) => w.advance(u64::from(dt)),
            Ev::Wake => w.timeout(),
            Ev::ServerStep(p) => w.srv.step(p),
            Ev::Press => w.feed(Input::CancelPressed),
            Ev::AnswerUser => w.answer_user(),
            Ev::Notify if model.is_task() => {
                let task = w.srv.view();
                w.feed(Input::TaskNotified { task });
            }
            Ev::Notify => {}
        }
    }
    // The network heals and the server finishes: the tracker must settle with its status.
    for round in 0..2000u32 {
        if w.host.shadow.done {
            break;
        }
        while w.deliver(0) {}
        while w.answer(0) {}
        w.answer_user();
        if round > 20 {
            w.srv.step((round % 3) as u8);
        }
        if w.requests.is_empty() && w.answers.is_empty() {
            w.timeout();
        }
    }
    let settled = w.host.log.iter().find_map(|o| match o {
        Output::Settled {
            outcome, status, ..
        } => Some((*outcome, *status)),
        _ => None,
    });
    let stopped = w
        .host
        .log
        .iter()
        .any(|o| matches!(o, Output::Stopped { .. }));
    if stopped {
        return;
    }
    let Some((outcome, status)) = settled else {
        panic!(
            "never settled; server {:?}, tracker {:?}",
            w.srv.status,
            w.host.tracker.record()
        );
    };
    assert_eq!(
        status,
        Some(w.srv.status),
        "tracker settled {status:?}, server ended {:?}",
        w.srv.status
    );
    assert_ne!(outcome, Outcome::Lost, "a live handle reported lost");
    assert_eq!(outcome == Outcome::Cancelled, w.srv.status.is_cancelled());
    if w.srv.status == Status::Completed {
        assert_eq!(outcome, Outcome::Succeeded);
    }
});
