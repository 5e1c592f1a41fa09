//! Tracker against the reference task server (`longcall::server::TaskRegistry`, both revisions,
//! cooperative or immediate cancel) over a network with arbitrary delays, drops and reordering.
//! Every `Driver` invariant holds throughout; at the end the network heals and, while the handle
//! is alive, the tracker must settle with exactly the server's terminal status.
#![no_main]
use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use longcall::outcome::Outcome;
use longcall::poll::PollPolicy;
use longcall::server::{CancelMode, CancelReply, RegistryConfig, ResultAnswer, TaskRegistry};
use longcall::tracker::{Failure, Input, Output, Request, RequestKind, TrackerConfig};
use longcall::view::{RpcError, TaskView, ToolResult};
use longcall::{Model, Status};
use longcall_fuzz::{Driver, SimServer, World, HANDLE};
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
    model: bool,
    immediate: bool,
    seed: u64,
    interval: Option<u16>,
    events: Vec<Ev>,
}

struct Server {
    reg: TaskRegistry,
    now: u64,
    next_key: u32,
}

const P: &str = "principal";

impl Server {
    fn status(&self) -> Status {
        self.reg
            .peek(HANDLE)
            .map(|t| t.status)
            .expect("the task is kept (no TTL, no retention)")
    }

    fn view(&mut self) -> TaskView {
        self.reg.get(self.now, P, HANDLE).expect("own task")
    }

    /// One worker-side write.
    fn step(&mut self, pick: u8) {
        let now = self.now;
        match pick % 5 {
            0 => {
                let _ = self.reg.complete(
                    now,
                    HANDLE,
                    ToolResult {
                        is_error: pick & 8 != 0,
                        value: json!(1),
                    },
                );
            }
            1 => {
                let _ = self.reg.fail(
                    now,
                    HANDLE,
                    RpcError {
                        code: -32603,
                        message: "boom".into(),
                        data: None,
                    },
                );
            }
            2 => {
                if self.reg.cancel_requested(HANDLE) || pick & 8 != 0 {
                    let _ = self.reg.settle_cancelled(now, HANDLE);
                }
            }
            _ => {
                self.next_key += 1;
                let key = format!("key{}", self.next_key);
                let _ = self.reg.request_input(now, HANDLE, &key, json!({"q": 1}));
            }
        }
    }

    /// The answer to a request, or None while `tasks/result` blocks.
    fn answer(&mut self, req: &Request) -> Option<Input> {
        let now = self.now;
        let rpc = |request: RequestKind, error: RpcError| Input::RequestFailed {
            request,
            failure: Failure::Rpc { error },
        };
        Some(match req {
            // The simulated call creates its task at once: no MRTR round, no continuation.
            Request::ContinueCall { .. } => panic!("a continuation without an input round"),
            Request::Get { .. } => match self.reg.get(now, P, HANDLE) {
                Ok(task) => Input::TaskPolled { task },
                Err(e) => rpc(RequestKind::Get, e),
            },
            Request::Cancel { .. } => {
                let reply = self.reg.cancel(now, P, HANDLE);
                match reply {
                    Err(e) => rpc(RequestKind::Cancel, e),
                    ok => Input::CancelAnswered {
                        answer: CancelReply::cancel_answer(&ok),
                    },
                }
            }
            Request::Update { responses, .. } => {
                match self.reg.update(now, P, HANDLE, responses.clone()) {
                    Ok(_) => Input::UpdateAcked,
                    Err(e) => rpc(RequestKind::Update, e),
                }
            }
            Request::FetchResult { .. } => match self.reg.result(now, P, HANDLE) {
                Ok(ResultAnswer::Blocked { .. }) => return None,
                Ok(ResultAnswer::Result { result }) => Input::ResultFetched { result },
                Ok(other) => rpc(
                    RequestKind::FetchResult,
                    other.rpc_error().expect("an error answer"),
                ),
                Err(e) => rpc(RequestKind::FetchResult, e),
            },
        })
    }
}

impl SimServer for Server {
    fn reply(&mut self, req: &Request) -> Option<Input> {
        self.answer(req)
    }
    fn set_now(&mut self, now: u64) {
        self.now = now;
    }
}

fuzz_target!(|c: Case| {
    let model = if c.model {
        Model::Task2026
    } else {
        Model::Task2025
    };
    let config = TrackerConfig {
        poll: PollPolicy::default(),
        seed: c.seed,
        deadline_ms: None,
    };
    let Some(d) = Driver::new(model, config) else {
        return;
    };
    let reg_config = RegistryConfig {
        ttl_ms: None,
        retention_ms: None,
        poll_interval_ms: c.interval.map(u64::from),
        cancel: if c.immediate {
            CancelMode::Immediate
        } else {
            CancelMode::Cooperative
        },
        ..RegistryConfig::default()
    };
    let mut reg = TaskRegistry::new(model, reg_config).expect("registry");
    let task = reg.create(0, P, HANDLE, None).expect("create");
    let srv = Server {
        reg,
        now: 0,
        next_key: 0,
    };
    let mut w = World::new(d, srv);
    w.feed(Input::TaskCreated { task });
    for ev in c.events.iter().take(300) {
        w.srv.now = w.d.shadow.now;
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
            Ev::Notify => {
                let task = w.srv.view();
                w.feed(Input::TaskNotified { task });
            }
        }
    }
    // The network heals and the server finishes: the tracker must settle with its status.
    for round in 0..2000u32 {
        if w.d.shadow.done {
            break;
        }
        while w.deliver(0) {}
        while w.answer(0) {}
        w.answer_user();
        w.srv.now = w.d.shadow.now;
        if round > 20 {
            w.srv.step((round % 3) as u8);
        }
        if w.requests.is_empty() && w.answers.is_empty() {
            w.timeout();
        }
    }
    let settled = w.d.log.iter().find_map(|o| match o {
        Output::Settled {
            outcome, status, ..
        } => Some((*outcome, *status)),
        _ => None,
    });
    let stopped = w.d.log.iter().any(|o| matches!(o, Output::Stopped { .. }));
    if stopped {
        return;
    }
    let Some((outcome, status)) = settled else {
        panic!(
            "never settled; server {:?}, tracker {:?}",
            w.srv.status(),
            w.d.tracker.record()
        );
    };
    assert_eq!(
        status,
        Some(w.srv.status()),
        "tracker settled {status:?}, server ended {:?}",
        w.srv.status()
    );
    assert_ne!(outcome, Outcome::Lost, "a live handle reported lost");
    assert_eq!(outcome == Outcome::Cancelled, w.srv.status().is_cancelled());
    let _ = Status::Completed;
});
