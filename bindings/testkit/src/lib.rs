//! Test support for longcall, shared by the core's tests (`tests/`) and the fuzz targets
//! (`fuzz/`):
//!
//! - [`Checked`]: a host's [`Tracker`] under the rule book's invariants (`docs/rules.md`), written
//!   independently of the crate's own tables; every output is checked as it is drained.
//! - [`SimServer`]: a server behind the simulated network; [`TaskServer`] is the reference task
//!   server (`longcall::server::TaskRegistry`) as one.
//! - [`Driver`]: the network between them with one shared clock: requests and answers are
//!   delivered, dropped or reordered one by one, or all in order by
//!   [`Driver::drive_until_idle`] and [`Driver::run_until`].
//! - [`WaveDriver`]: a host's [`Wave`] in front of the reference job server ([`JobServer`]),
//!   every `jobs_wait` and `jobs_cancel` answered at once, with one clock.
//!
//! A scenario reads as what the server does and what the host sees:
//!
//! ```
//! use longcall::outcome::Outcome;
//! use longcall::server::RegistryConfig;
//! use longcall::tracker::{Input, TrackerConfig};
//! use longcall::Model;
//! use longcall_testkit::{Checked, Driver, TaskServer, HANDLE};
//!
//! let (srv, task) = TaskServer::new(Model::Task2026, RegistryConfig::default());
//! let host = Checked::new(Model::Task2026, TrackerConfig::default()).unwrap();
//! let mut net = Driver::new(host, srv);
//! net.feed(Input::TaskCreated { task });
//! net.run_until(5_000);
//! assert_eq!(net.host.settled(), None, "the task is still working");
//!
//! // The server finishes the work; the host's next poll sees it.
//! net.srv.complete(HANDLE, false);
//! net.run_until(60_000);
//! assert_eq!(net.host.settled().map(|(o, _)| o), Some(Outcome::Succeeded));
//! ```

use longcall::batch::WaitCall;
use longcall::cancel::{ButtonState, CancelAnswer};
use longcall::job_vocab::JobErrorCode;
use longcall::outcome::Outcome;
use longcall::ownership::Owner;
use longcall::server::{
    CancelReply, JobBook, JobBookConfig, RegistryConfig, ResultAnswer, TaskRegistry, WaitEntry,
};
use longcall::tracker::{Failure, Input, Output, Request, RequestKind, Tracker, TrackerConfig};
use longcall::view::{ApiError, JobView, RpcError, TaskView, ToolResult};
use longcall::wave::{Wave, WaveConfig, WaveInput, WaveOutput};
use longcall::{Model, Status};
use serde_json::json;

/// The handle every created call gets.
pub const HANDLE: &str = "h1";

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

/// A tracker under the rule book's invariants: every output is checked against what the host
/// fed it (the [`Shadow`]). Panics (a test failure, a fuzz finding) on a violation.
pub struct Checked {
    pub model: Model,
    pub config: TrackerConfig,
    pub tracker: Tracker,
    pub shadow: Shadow,
    /// Every output, for the snapshot comparison.
    pub log: Vec<Output>,
}

impl Checked {
    /// A tracker of `model`, or `None` if the core refuses the configuration.
    pub fn new(model: Model, config: TrackerConfig) -> Option<Checked> {
        let tracker = Tracker::new(model, config.clone()).ok()?;
        Some(Checked {
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

    /// The shared clock: the host time in ms.
    pub fn now(&self) -> u64 {
        self.shadow.now
    }

    /// Host time moves on by `dt` ms; the tracker's timer is fired and its outputs drained.
    pub fn advance(&mut self, dt: u64) {
        self.shadow.now += dt;
        self.tracker.handle_timeout(self.shadow.now);
        self.drain();
    }

    /// Time jumps to the tracker's last `WakeAt` (if later); the timer fires, outputs drained.
    pub fn wake(&mut self) {
        if let Some(w) = self.shadow.wake {
            self.shadow.now = self.shadow.now.max(w);
        }
        self.tracker.handle_timeout(self.shadow.now);
        self.drain();
    }

    /// Saves and restores the tracker and checks nothing changed (rule S-4).
    pub fn snapshot_roundtrip(&mut self) {
        let text = longcall::snapshot::save(&self.tracker).expect("save");
        let back: Tracker = longcall::snapshot::restore(&text).expect("restore of a saved tracker");
        assert_eq!(back, self.tracker, "restore(save(x)) != x");
        self.tracker = back;
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
                // confirming tasks/get goes out at once, exempt from the floor (rule O-8).
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
                answer: CancelAnswer::Task { status },
            } if self.model.is_task() => note_status(status.status(), &mut self.shadow),
            Input::CancelAnswered {
                answer: CancelAnswer::Job { status },
            } if self.model == Model::Job => note_status(status.status(), &mut self.shadow),
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

impl Checked {
    /// How the call settled, as the host saw it (`Output::Settled`), if it did.
    pub fn settled(&self) -> Option<(Outcome, Option<Status>)> {
        self.log.iter().find_map(|o| match o {
            Output::Settled {
                outcome, status, ..
            } => Some((*outcome, *status)),
            _ => None,
        })
    }

    /// Whether the host was told the tracker stopped watching (`Output::Stopped`).
    pub fn stopped(&self) -> bool {
        self.log.iter().any(|o| matches!(o, Output::Stopped { .. }))
    }

    /// The cancel button states the host was shown, in order.
    pub fn buttons(&self) -> Vec<ButtonState> {
        self.log
            .iter()
            .filter_map(|o| match o {
                Output::Button { state } => Some(*state),
                _ => None,
            })
            .collect()
    }

    /// The requests the host was told to send, in order.
    pub fn sent(&self) -> Vec<&Request> {
        self.log
            .iter()
            .filter_map(|o| match o {
                Output::Send { request } => Some(request),
                _ => None,
            })
            .collect()
    }
}

/// A server a lock-step target simulates behind a [`Driver`].
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

/// The network between a host's tracker (a [`Checked`]) and a simulated server, with one clock
/// (in the spirit of quinn's test `Pair`): requests and answers in flight, delivered, dropped and
/// reordered one by one (as a fuzzer picks), or all in order by [`Driver::drive_until_idle`].
pub struct Driver<S> {
    /// The host side: the tracker and its shadow invariants.
    pub host: Checked,
    /// The server.
    pub srv: S,
    seen: usize,
    /// Requests sent and not yet delivered.
    pub requests: Vec<Request>,
    /// Answers produced and not yet delivered to the tracker.
    pub answers: Vec<Input>,
}

impl<S: SimServer> Driver<S> {
    /// A world with nothing in flight.
    pub fn new(host: Checked, srv: S) -> Driver<S> {
        Driver {
            host,
            srv,
            seen: 0,
            requests: Vec::new(),
            answers: Vec::new(),
        }
    }
    /// Picks up the requests the tracker sent since the last look.
    pub fn collect(&mut self) {
        for o in &self.host.log[self.seen..] {
            if let Output::Send { request } = o {
                self.requests.push(request.clone());
            }
        }
        self.seen = self.host.log.len();
    }
    /// Hands an input to the tracker and picks up what it sends.
    pub fn feed(&mut self, input: Input) {
        self.host.feed(input);
        self.host.drain();
        self.collect();
    }
    /// Delivers request `i` (mod the number in flight) to the server; false if none or blocked.
    pub fn deliver(&mut self, i: usize) -> bool {
        self.srv.set_now(self.host.shadow.now);
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
        self.host.advance(dt);
        self.collect();
    }
    /// Time jumps to the tracker's wake-up.
    pub fn timeout(&mut self) {
        self.host.wake();
        self.collect();
    }
    /// The user answers every input key asked so far.
    pub fn answer_user(&mut self) {
        let asked = self.host.shadow.asked.clone();
        for k in asked {
            self.feed(Input::InputAnswered {
                key: k,
                response: json!({"action": "accept", "content": {"answer": "yes"}}).into(),
            });
        }
    }
}

impl<S: SimServer> Driver<S> {
    /// The shared clock: host and server time in ms.
    pub fn now(&self) -> u64 {
        self.host.now()
    }

    /// Delivers every request and every answer in order until nothing is in flight (or only
    /// requests the server holds, such as a 2025 `tasks/result` before the task settles). No time
    /// passes.
    pub fn drive_until_idle(&mut self) {
        for _ in 0..100_000 {
            let mut moved = false;
            let mut i = 0;
            while i < self.requests.len() {
                if self.deliver(i) {
                    moved = true;
                } else {
                    i += 1;
                }
            }
            while self.answer(0) {
                moved = true;
            }
            if !moved {
                return;
            }
        }
        panic!("the network never goes idle");
    }

    /// Drives the network and fires every tracker wake-up due up to `until` (ms), then leaves the
    /// clock at `until` (or later, if it already was).
    pub fn run_until(&mut self, until: u64) {
        for _ in 0..100_000 {
            self.drive_until_idle();
            match self.host.shadow.wake {
                Some(at) if at <= until && !self.host.shadow.done => {
                    self.timeout();
                    if self.host.shadow.now < at {
                        return;
                    }
                }
                _ => {
                    let dt = until.saturating_sub(self.host.now());
                    self.advance(dt);
                    self.drive_until_idle();
                    return;
                }
            }
        }
        panic!("the tracker wakes up without end before {until}");
    }
}

/// The principal every [`TaskServer`] call is made as.
pub const PRINCIPAL: &str = "principal";

/// The reference task server (`TaskRegistry`) holding one task, [`HANDLE`], as a [`SimServer`].
/// Tests write to it as the worker would ([`TaskServer::complete`], or `reg` directly).
pub struct TaskServer {
    /// The registry; worker-side writes go here.
    pub reg: TaskRegistry,
    /// The server's clock, set by the [`Driver`] before every request.
    pub now: u64,
}

impl TaskServer {
    /// A registry of `model` with the task [`HANDLE`] created at time 0, and the creating answer.
    pub fn new(model: Model, config: RegistryConfig) -> (TaskServer, TaskView) {
        let mut reg = TaskRegistry::new(model, config).expect("a valid registry config");
        let task = reg
            .create(0, PRINCIPAL, HANDLE, None)
            .expect("create the task");
        (TaskServer { reg, now: 0 }, task)
    }

    /// The task's status on the server.
    pub fn status(&self) -> Status {
        self.reg
            .peek(HANDLE)
            .map(|t| t.status)
            .expect("the task is kept")
    }

    /// The task as `tasks/get` would answer now.
    pub fn view(&mut self) -> TaskView {
        self.reg
            .get(self.now, PRINCIPAL, HANDLE)
            .expect("the task is kept")
    }

    /// The work finishes with a tool result (`is_error` as the tool said).
    pub fn complete(&mut self, id: &str, is_error: bool) {
        let _ = self.reg.complete(
            self.now,
            id,
            ToolResult {
                is_error,
                value: json!(1).into(),
            },
        );
    }

    /// The answer to a request, or `None` while `tasks/result` blocks.
    pub fn answer(&mut self, req: &Request) -> Option<Input> {
        task_answer(&mut self.reg, self.now, PRINCIPAL, HANDLE, req)
    }
}

/// What the reference task server answers to `req` about task `task_id`, asked by `principal`
/// at `now`, as the host's input; `None` while a 2025 `tasks/result` blocks, and for an MRTR
/// continuation (the reference registry has no MRTR round: the `tools/call` that made the task
/// is the caller's own, and a continuation is never asked for).
pub fn task_answer(
    reg: &mut TaskRegistry,
    now: u64,
    principal: &str,
    task_id: &str,
    req: &Request,
) -> Option<Input> {
    let rpc = |request: RequestKind, error: RpcError| Input::RequestFailed {
        request,
        failure: Failure::Rpc { error },
    };
    Some(match req {
        Request::Get { .. } => match reg.get(now, principal, task_id) {
            Ok(task) => Input::TaskPolled { task },
            Err(e) => rpc(RequestKind::Get, e),
        },
        Request::Cancel { .. } => match reg.cancel(now, principal, task_id) {
            Err(e) => rpc(RequestKind::Cancel, e),
            ok => Input::CancelAnswered {
                answer: CancelReply::cancel_answer(&ok),
            },
        },
        Request::Update { responses, .. } => {
            match reg.update(
                now,
                principal,
                task_id,
                responses
                    .iter()
                    .map(|(k, v)| (k.clone(), v.as_value().clone()))
                    .collect(),
            ) {
                Ok(_) => Input::UpdateAcked,
                Err(e) => rpc(RequestKind::Update, e),
            }
        }
        Request::FetchResult { .. } => match reg.result(now, principal, task_id) {
            Ok(ResultAnswer::Blocked { .. }) => return None,
            Ok(ResultAnswer::Result { result }) => Input::ResultFetched { result },
            Ok(other) => rpc(
                RequestKind::FetchResult,
                other.rpc_error().expect("an error answer"),
            ),
            Err(e) => rpc(RequestKind::FetchResult, e),
        },
        Request::ContinueCall { .. } => return None,
    })
}

impl SimServer for TaskServer {
    fn reply(&mut self, req: &Request) -> Option<Input> {
        self.answer(req)
    }
    fn set_now(&mut self, now: u64) {
        self.now = now;
    }
}

/// The reference job server (`JobBook`) for one workspace member, answering a [`WaveDriver`].
pub struct JobServer {
    /// The book; submits and worker-side writes go here.
    pub book: JobBook,
    /// Who every call is made as.
    pub owner: Owner,
    /// How many `jobs_wait` calls it answered.
    pub waits: usize,
    /// The size of every `jobs_wait` call it answered, in order.
    pub wait_sizes: Vec<usize>,
}

impl JobServer {
    /// An empty book with `config`, called by member `m` of workspace `w`.
    pub fn new(config: JobBookConfig) -> JobServer {
        JobServer {
            book: JobBook::new(config).expect("a valid job book config"),
            owner: Owner {
                workspace: "w".into(),
                member: "m".into(),
            },
            waits: 0,
            wait_sizes: Vec::new(),
        }
    }

    /// Submits job `id` (its own idempotency key) and dispatches; the submit's answer.
    pub fn submit(&mut self, now: u64, id: &str) -> JobView {
        let job = self
            .book
            .submit(now, &self.owner, id, Some(&format!("{id}:submit")))
            .expect("the submit is accepted");
        let _ = self.book.dispatch(now);
        job
    }

    /// The job's status on the server.
    pub fn status(&self, id: &str) -> Status {
        self.book.peek(id).expect("a known job").1.status
    }

    fn wait(&mut self, now: u64, call: &WaitCall) -> Result<Vec<JobView>, ApiError> {
        self.waits += 1;
        self.wait_sizes.push(call.job_ids.len());
        let snapshot = self.book.wait(
            now,
            &self.owner,
            &call.job_ids,
            call.wait_for,
            call.include_results,
        )?;
        // An id the server does not show is left out: the wave keeps it as it was (B-4).
        Ok(snapshot
            .jobs
            .into_iter()
            .filter_map(|e| match e {
                WaitEntry::Job { job } => Some(job),
                WaitEntry::NotFound { .. } => None,
            })
            .collect())
    }

    /// What the book answers to a tracker's request about a job at `now`, as the host's input:
    /// `jobs_get` and `jobs_cancel` (with the cancel's own idempotency key); `None` for the
    /// requests a job never makes.
    pub fn answer(&mut self, now: u64, req: &Request) -> Option<Input> {
        match req {
            Request::Get { handle } => Some(match self.book.get(&self.owner, handle) {
                Ok(job) => Input::JobPolled { job },
                Err(e) => Input::RequestFailed {
                    request: RequestKind::Get,
                    failure: Failure::Http {
                        status: e.http_status,
                        code: Some(e.code),
                        retry_after_ms: None,
                    },
                },
            }),
            Request::Cancel {
                handle,
                idempotency_key,
            } => {
                let answer = self.cancel(now, handle, idempotency_key.as_deref());
                let _ = self.book.dispatch(now);
                Some(answer)
            }
            Request::Update { .. } | Request::FetchResult { .. } | Request::ContinueCall { .. } => {
                None
            }
        }
    }

    fn cancel(&mut self, now: u64, id: &str, key: Option<&str>) -> Input {
        let answer = match self.book.cancel(now, &self.owner, id, key) {
            Ok(job) => match job.status.job() {
                Some(status) => CancelAnswer::Job { status },
                None => CancelAnswer::NoAnswer, // a job book holds job statuses only
            },
            Err(e) => CancelAnswer::JobError {
                http_status: e.http_status,
                code: JobErrorCode::parse(&e.code),
                cancelable: e
                    .details
                    .as_ref()
                    .and_then(|d| d.get("cancelable"))
                    .and_then(serde_json::Value::as_bool),
            },
        };
        Input::CancelAnswered { answer }
    }
}

/// A host's [`Wave`] and a [`JobServer`] with one clock: every `jobs_wait` and `jobs_cancel` the
/// wave asks for is answered at once, in order. `log` is what the host saw.
pub struct WaveDriver {
    /// The host side.
    pub wave: Wave,
    /// The server.
    pub srv: JobServer,
    /// The shared clock (ms).
    pub now: u64,
    /// Every output the host drained, in order.
    pub log: Vec<WaveOutput>,
}

impl WaveDriver {
    /// A wave with `config` in front of `srv`, at time 0.
    pub fn new(config: WaveConfig, srv: JobServer) -> WaveDriver {
        WaveDriver {
            wave: Wave::new(config).expect("a valid wave config"),
            srv,
            now: 0,
            log: Vec::new(),
        }
    }

    /// Submits job `id` on the server and adds the answer to the wave.
    pub fn submit(&mut self, id: &str, deadline: Option<u64>) {
        let job = self.srv.submit(self.now, id);
        self.input(WaveInput::AddJob { job, deadline });
    }

    /// Feeds an input to the wave (it must be taken) and answers what it asks for.
    pub fn input(&mut self, input: WaveInput) {
        self.wave
            .handle_input(self.now, input)
            .expect("the wave takes the input");
        self.pump();
    }

    /// Drains the wave, answering every call at once, until it waits for a time or nothing.
    /// Returns the wake-up time, if any.
    fn pump(&mut self) -> Option<u64> {
        for _ in 0..100_000 {
            let out = self.wave.poll_output();
            self.log.push(out.clone());
            let input = match out {
                WaveOutput::WakeAt { at } => return Some(at),
                WaveOutput::Idle => return None,
                WaveOutput::Wait { call_id, call } => match self.srv.wait(self.now, &call) {
                    Ok(jobs) => WaveInput::WaitAnswered { call_id, jobs },
                    Err(e) => WaveInput::WaitFailed {
                        call_id,
                        failure: Failure::Http {
                            status: e.http_status,
                            code: Some(e.code),
                            retry_after_ms: None,
                        },
                    },
                },
                WaveOutput::Job {
                    id,
                    output:
                        Output::Send {
                            request:
                                Request::Cancel {
                                    idempotency_key, ..
                                },
                        },
                } => {
                    let input = self.srv.cancel(self.now, &id, idempotency_key.as_deref());
                    WaveInput::Job { id, input }
                }
                _ => continue,
            };
            self.wave
                .handle_input(self.now, input)
                .expect("the wave takes the server's answer");
        }
        panic!("the wave's outputs do not end");
    }

    /// Runs the wave and the server up to `until` (ms): every wake-up due fires, every call is
    /// answered. The clock ends at `until`.
    pub fn run_until(&mut self, until: u64) {
        for _ in 0..100_000 {
            match self.pump() {
                Some(at) if at <= until => {
                    self.now = self.now.max(at);
                    self.wave.handle_timeout(self.now);
                }
                _ => {
                    self.now = self.now.max(until);
                    return;
                }
            }
        }
        panic!("the wave wakes up without end before {until}");
    }

    /// What the host saw of job `id`, in order.
    pub fn job_outputs(&self, id: &str) -> Vec<&Output> {
        self.log
            .iter()
            .filter_map(|o| match o {
                WaveOutput::Job { id: of, output } if of == id => Some(output),
                _ => None,
            })
            .collect()
    }

    /// The [`WaveOutput::Satisfied`] the host saw, if any.
    pub fn satisfied(&self) -> Option<Option<&str>> {
        self.log.iter().find_map(|o| match o {
            WaveOutput::Satisfied { by } => Some(by.as_deref()),
            _ => None,
        })
    }
}
