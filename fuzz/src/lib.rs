//! Shared harness for the longcall fuzz targets: structured inputs built with `arbitrary`, a
//! driver that feeds them to a `Tracker`, and the invariants checked on every output.
//!
//! The invariants are written from SEMANTICS.md, independently of the crate's own tables.

use arbitrary::Arbitrary;
use longcall::cancel::{ButtonState, CancelAnswer, JobErrorCode};
use longcall::poll::{Jitter, PollPolicy};
use longcall::tracker::{Failure, Input, Output, Request, RequestKind, Tracker, TrackerConfig};
use longcall::view::{InputRequest, JobView, RpcError, TaskView, ToolResult};
use longcall::{Model, Status};
use serde_json::json;

/// The handle every created call gets.
pub const HANDLE: &str = "h1";

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
                        request: json!({"q": k}),
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
            ttl_ms: self.ttl.map(u64::from),
            poll_interval_ms: self.poll_interval.map(u64::from),
            input_requests,
            result: self.result.map(|is_error| ToolResult {
                is_error,
                value: json!({}),
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
            result: self.result.map(|_| json!({"ok": true})),
            error: self.error.then(|| json!({"code": "x"})),
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
            Answer::Task(s) => CancelAnswer::Task {
                status: status_of(Model::Task2025, *s),
            },
            Answer::Rpc(unknown) => CancelAnswer::RpcError {
                code: if *unknown { -32602 } else { -32603 },
            },
            Answer::Job(s) => CancelAnswer::Job {
                status: status_of(Model::Job, *s),
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
                    value: json!(1),
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
            Op::Fetched(is_error) => Input::ResultFetched {
                result: ToolResult {
                    is_error: *is_error,
                    value: json!(2),
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
                response: json!({"a": k}),
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

/// What the checker knows from the inputs it fed (the oracle's shadow state).
#[derive(Debug, Clone, Default)]
pub struct Shadow {
    pub now: u64,
    pub wake: Option<u64>,
    /// Time of the last answer to a poll (or of the creation).
    pub last_get_answer: Option<u64>,
    /// Latest server interval seen.
    pub server_interval: Option<u64>,
    /// The server interval in force when the last poll answer arrived.
    pub interval_at_last_answer: Option<u64>,
    /// Latest absolute Retry-After deadline.
    pub not_before: Option<u64>,
    pub asked: Vec<String>,
    /// The handle the creating answer named.
    pub handle: Option<String>,
    pub cancelled_seen: bool,
    pub settled: u32,
    pub done: bool,
    pub get_in_flight: bool,
    /// Check the Retry-After of a 429 on any request (not only on a poll).
    pub strict_retry_after: bool,
    /// Measure the floor with the latest interval, even one learnt from a notification after
    /// the next poll was armed. Finding F2, fixed: on.
    pub strict_floor: bool,
    /// Check the deadline against the time the poll is sent (a host that wakes late), not only
    /// against the time it was scheduled for. Finding F1, fixed: on.
    pub strict_deadline: bool,
}

/// Drives one scenario and checks every invariant. Panics (= a fuzz finding) on a violation.
pub struct Driver {
    pub model: Model,
    pub config: TrackerConfig,
    pub tracker: Tracker,
    pub shadow: Shadow,
    /// Every output, for the snapshot comparison.
    pub log: Vec<Output>,
}

impl Driver {
    pub fn new(model: Model, config: TrackerConfig) -> Option<Driver> {
        let tracker = Tracker::new(model, config.clone()).ok()?;
        Some(Driver {
            model,
            config,
            tracker,
            // Findings F1-F3 are fixed: every check is strict.
            shadow: Shadow {
                strict_retry_after: true,
                strict_floor: true,
                strict_deadline: true,
                ..Shadow::default()
            },
            log: Vec::new(),
        })
    }

    /// Applies one op: input, timeout or (when `snapshots`) a save/restore.
    pub fn step(&mut self, op: &Op, snapshots: bool) {
        match op {
            Op::Advance(d) => {
                self.shadow.now += u64::from(*d);
                self.tracker.handle_timeout(self.shadow.now);
            }
            Op::Wake => {
                if let Some(w) = self.shadow.wake {
                    self.shadow.now = self.shadow.now.max(w);
                }
                self.tracker.handle_timeout(self.shadow.now);
            }
            Op::Snapshot => {
                if snapshots {
                    let text = longcall::snapshot::save(&self.tracker).expect("save");
                    let back: Tracker =
                        longcall::snapshot::restore(&text).expect("restore of a saved tracker");
                    assert_eq!(back, self.tracker, "restore(save(x)) != x");
                    self.tracker = back;
                }
            }
            _ => {
                let input = op.input(self.model).expect("an input op");
                self.feed(input);
            }
        }
        self.drain();
    }

    /// Feeds one input, updating the shadow state from what the host knows it sent.
    pub fn feed(&mut self, input: Input) {
        let before = self.tracker.clone();
        let now = self.shadow.now;
        let shadow_input = input.clone();
        match self.tracker.handle_input(now, input) {
            Err(e) => {
                assert!(longcall::error::ERROR_CODES.contains(&e.code()));
                assert_eq!(self.tracker, before, "an error changed the tracker: {e:?}");
            }
            Ok(()) => self.observe_input(&shadow_input, &before),
        }
    }

    fn observe_input(&mut self, input: &Input, before: &Tracker) {
        let now = self.shadow.now;
        match input {
            Input::TaskCreated { task } => self.shadow.handle = Some(task.task_id.clone()),
            Input::JobCreated { job } => self.shadow.handle = Some(job.id.clone()),
            _ => {}
        }
        let handle = self.shadow.handle.clone();
        let own = |id: &str| Some(id) == handle.as_deref();
        let note_status = |s: Status, sh: &mut Shadow| {
            if s.is_cancelled() {
                sh.cancelled_seen = true;
            }
        };
        match input {
            Input::TaskCreated { task }
            | Input::TaskPolled { task }
            | Input::TaskNotified { task }
                if own(&task.task_id) =>
            {
                note_status(task.status, &mut self.shadow);
                if let Some(ms) = task.poll_interval_ms {
                    self.shadow.server_interval = Some(ms);
                }
                // A 2026 task created completed or failed carries no payload (a Task): its one
                // confirming tasks/get goes out at once, exempt from the floor (rule E-8).
                let born_terminal = matches!(input, Input::TaskCreated { .. })
                    && self.model == Model::Task2026
                    && matches!(task.status, Status::Completed | Status::Failed)
                    && task.result.is_none()
                    && task.error.is_none();
                if !matches!(input, Input::TaskNotified { .. }) {
                    self.shadow.interval_at_last_answer = self.shadow.server_interval;
                    self.shadow.last_get_answer = (!born_terminal).then_some(now);
                    self.shadow.get_in_flight = false;
                }
            }
            Input::JobCreated { job } | Input::JobPolled { job } => {
                note_status(job.status, &mut self.shadow);
                self.shadow.interval_at_last_answer = self.shadow.server_interval;
                self.shadow.last_get_answer = Some(now);
                self.shadow.get_in_flight = false;
            }
            Input::CancelAnswered {
                answer: CancelAnswer::Task { status } | CancelAnswer::Job { status },
            } if status.belongs_to(self.model) => note_status(*status, &mut self.shadow),
            Input::RequestFailed { request, failure } => {
                if *request == RequestKind::Get {
                    self.shadow.interval_at_last_answer = self.shadow.server_interval;
                    self.shadow.last_get_answer = Some(now);
                    self.shadow.get_in_flight = false;
                }
                if let Failure::Http {
                    status: 429,
                    retry_after_ms,
                    ..
                } = failure
                {
                    if *request != RequestKind::Cancel || self.shadow.strict_retry_after {
                        let until = now + retry_after_ms.unwrap_or(0);
                        self.shadow.not_before =
                            Some(self.shadow.not_before.map_or(until, |n| n.max(until)));
                    }
                }
            }
            _ => {}
        }
        let _ = before;
    }

    /// Drains the outputs and checks each.
    pub fn drain(&mut self) {
        let mut n = 0;
        loop {
            n += 1;
            assert!(n < 10_000, "output queue does not end");
            let out = self.tracker.poll_output();
            self.check(&out);
            let last = matches!(out, Output::WakeAt { .. } | Output::Idle);
            if let Output::WakeAt { at } = out {
                self.shadow.wake = Some(at);
            }
            if matches!(out, Output::Idle) {
                self.shadow.wake = None;
            }
            self.log.push(out);
            if last {
                break;
            }
        }
    }

    fn check(&mut self, out: &Output) {
        let now = self.shadow.now;
        let policy = &self.config.poll;
        match out {
            Output::Send { request } => {
                let handle = match request {
                    Request::Get { handle } => handle,
                    Request::Cancel { handle, .. } => handle,
                    Request::Update { handle, .. } => handle,
                    Request::FetchResult { handle } => handle,
                    // No op feeds an MRTR round, so no continuation can be asked for.
                    Request::ContinueCall { .. } => panic!("a continuation without an input round"),
                };
                assert_eq!(
                    Some(handle),
                    self.shadow.handle.as_ref(),
                    "a request for a handle that was never created"
                );
                if let Request::Update { .. } = request {
                    assert_eq!(self.model, Model::Task2026, "tasks/update is 2026 only");
                }
                if let Request::FetchResult { .. } = request {
                    assert_eq!(self.model, Model::Task2025, "tasks/result is 2025 only");
                }
                if let Request::Get { .. } = request {
                    assert!(
                        !self.shadow.done,
                        "a poll after the call settled or watching stopped"
                    );
                    assert!(!self.shadow.get_in_flight, "two polls in flight");
                    self.shadow.get_in_flight = true;
                    if let Some(d) = self.config.deadline_ms {
                        let at = if self.shadow.strict_deadline {
                            now
                        } else {
                            self.shadow.wake.unwrap_or(now)
                        };
                        assert!(at <= d, "poll at {at} after the watch deadline {d}");
                    }
                    if let Some(nb) = self.shadow.not_before {
                        assert!(now >= nb, "poll at {now} before Retry-After {nb}");
                    }
                    if let Some(last) = self.shadow.last_get_answer {
                        let interval = if self.shadow.strict_floor {
                            self.shadow.server_interval
                        } else {
                            // A hint that changed since the last answer (a notification) may move
                            // the floor either way; only the smaller of the two is certain.
                            match (
                                self.shadow.interval_at_last_answer,
                                self.shadow.server_interval,
                            ) {
                                (Some(a), Some(b)) => Some(a.min(b)),
                                _ => None,
                            }
                        };
                        let floor = policy.min_interval_ms.max(interval.unwrap_or(0));
                        assert!(
                            now >= last + floor,
                            "poll at {now}, last answer {last}, floor {floor}"
                        );
                    }
                }
            }
            Output::AskUser { key, .. } => {
                assert_eq!(
                    self.model,
                    Model::Task2026,
                    "only 2026 asks through the tracker"
                );
                assert!(
                    !self.shadow.asked.contains(key),
                    "input key {key} asked twice"
                );
                self.shadow.asked.push(key.clone());
            }
            Output::Button {
                state: ButtonState::Cancelled,
            } => {
                assert!(
                    self.shadow.cancelled_seen,
                    "button cancelled without a cancelled status"
                );
            }
            Output::Settled {
                outcome, status, ..
            } => {
                self.shadow.settled += 1;
                assert_eq!(self.shadow.settled, 1, "settled twice");
                self.shadow.done = true;
                if *outcome == longcall::outcome::Outcome::Cancelled {
                    assert!(
                        self.shadow.cancelled_seen,
                        "settled cancelled without a cancelled status"
                    );
                    assert!(status.is_some_and(|s| s.is_cancelled()));
                }
            }
            Output::Stopped { .. } => {
                self.shadow.done = true;
            }
            _ => {}
        }
    }
}

/// A server a lock-step target simulates behind a [`World`].
pub trait SimServer {
    /// Answers a request, or `None` while it would block (2025 `tasks/result` before terminal).
    fn reply(&mut self, req: &Request) -> Option<Input>;
    /// The host time moved (a server with timers reads it).
    fn set_now(&mut self, _now: u64) {}
}

/// A request lost on the way: what the tracker hears is a transport failure.
pub fn transport(req: &Request) -> Input {
    Input::RequestFailed {
        request: req.kind(),
        failure: Failure::Transport,
    }
}

/// The network between a tracker (inside a [`Driver`]) and a simulated server: requests and
/// answers in flight, delivered, dropped and reordered as the fuzzer picks.
pub struct World<S> {
    /// The tracker and its shadow invariants.
    pub d: Driver,
    /// The server.
    pub srv: S,
    seen: usize,
    /// Requests sent and not yet delivered.
    pub requests: Vec<Request>,
    /// Answers produced and not yet delivered to the tracker.
    pub answers: Vec<Input>,
}

impl<S: SimServer> World<S> {
    /// A world with nothing in flight.
    pub fn new(d: Driver, srv: S) -> World<S> {
        World {
            d,
            srv,
            seen: 0,
            requests: Vec::new(),
            answers: Vec::new(),
        }
    }
    /// Picks up the requests the tracker sent since the last look.
    pub fn collect(&mut self) {
        for o in &self.d.log[self.seen..] {
            if let Output::Send { request } = o {
                self.requests.push(request.clone());
            }
        }
        self.seen = self.d.log.len();
    }
    /// Hands an input to the tracker and picks up what it sends.
    pub fn feed(&mut self, input: Input) {
        self.d.feed(input);
        self.d.drain();
        self.collect();
    }
    /// Delivers request `i` (mod the number in flight) to the server; false if none or blocked.
    pub fn deliver(&mut self, i: usize) -> bool {
        self.srv.set_now(self.d.shadow.now);
        if self.requests.is_empty() {
            return false;
        }
        let i = i % self.requests.len();
        let req = self.requests[i].clone();
        match self.srv.reply(&req) {
            Some(a) => {
                self.requests.remove(i);
                self.answers.push(a);
                true
            }
            None => false,
        }
    }
    /// Delivers answer `i` (mod the number in flight) to the tracker; false if none.
    pub fn answer(&mut self, i: usize) -> bool {
        if self.answers.is_empty() {
            return false;
        }
        let a = self.answers.remove(i % self.answers.len());
        self.feed(a);
        true
    }
    /// Request `i` (mod the number in flight) is lost; the tracker hears a transport failure.
    pub fn drop_request(&mut self, i: usize) {
        if !self.requests.is_empty() {
            let r = self.requests.remove(i % self.requests.len());
            self.feed(transport(&r));
        }
    }
    /// Answer `i` (mod the number in flight) is lost; the tracker hears a transport failure of
    /// the request it answered.
    pub fn drop_answer(&mut self, i: usize) {
        if self.answers.is_empty() {
            return;
        }
        let a = self.answers.remove(i % self.answers.len());
        let request = match &a {
            Input::TaskPolled { .. } | Input::JobPolled { .. } => RequestKind::Get,
            Input::CancelAnswered { .. } => RequestKind::Cancel,
            Input::UpdateAcked => RequestKind::Update,
            Input::RequestFailed { request, .. } => *request,
            _ => RequestKind::FetchResult,
        };
        self.feed(Input::RequestFailed {
            request,
            failure: Failure::Transport,
        });
    }
    /// Host time moves on by `dt` ms.
    pub fn advance(&mut self, dt: u64) {
        self.d.shadow.now += dt;
        self.d.step(&Op::Advance(0), false);
        self.collect();
    }
    /// Time jumps to the tracker's wake-up.
    pub fn timeout(&mut self) {
        if let Some(w) = self.d.shadow.wake {
            self.d.shadow.now = self.d.shadow.now.max(w);
        }
        self.d.step(&Op::Wake, false);
        self.collect();
    }
    /// The user answers every input key asked so far.
    pub fn answer_user(&mut self) {
        let asked = self.d.shadow.asked.clone();
        for k in asked {
            self.feed(Input::InputAnswered {
                key: k,
                response: json!("yes"),
            });
        }
    }
}
