//! The tracker state machine. See the module docs of [`crate::tracker`] for the run loop.

use alloc::collections::VecDeque;
use alloc::string::String;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use super::keys::{InputKeys, KeyState};
use super::record::{RunRecord, MAX_RECORDED_VIOLATIONS};
use super::{Failure, Input, Output, Polled, Request, RequestKind, StopReason};

mod saved;
use crate::cancel::button::NO_CANCEL_OUT;
use crate::cancel::{
    classify_answer, ButtonState, CancelAnswer, CancelButton, CancelVerdict, JobErrorCode,
};
use crate::error::Error;
use crate::lifecycle::{self, Observation, Seed};
use crate::model::Model;
use crate::outcome::{self, Outcome, Payload};
use crate::poll::{Due, PollPolicy, PollSchedule, ScheduleEnd};
use crate::snapshot::Snapshot;
use crate::status::Status;
use crate::text::Text;
use crate::time::later;
use crate::view::{codes, InputRequest, JobView, RpcError, TaskView, ToolResult, Ttl};
use crate::violation::{Rule, Violation};
use crate::wire::jsonrpc::rpc_error_to_value;
use crate::Json;

/// An HTTP error answer to a request, as the machine reads it: its status, its envelope's
/// error code (read once), and its Retry-After.
#[derive(Clone, Copy)]
struct HttpFailure {
    status: u16,
    code: JobErrorCode,
    retry_after_ms: Option<u64>,
}

/// How a tracker polls and how long it watches.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(default)]
pub struct TrackerConfig {
    /// Backoff, jitter, global minimum and maximum polls.
    pub poll: PollPolicy,
    /// Seed for the jitter, so every schedule is reproducible. Give each call (or at least
    /// each host process) its own, from the host's random source: the default (0) is the same
    /// everywhere, and calls started together with one seed poll together.
    pub seed: u64,
    /// Absolute time after which the tracker stops watching (never stops the call).
    pub deadline_ms: Option<u64>,
}

// Read member by member from a `Value` object (`crate::tagged`): a derived reader would also
// compile an array form nobody writes.
impl<'de> Deserialize<'de> for TrackerConfig {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut f = crate::tagged::members(d, "struct TrackerConfig")?;
        let fallback = TrackerConfig::default();
        Ok(TrackerConfig {
            poll: f.or("poll", fallback.poll)?,
            seed: f.or("seed", fallback.seed)?,
            deadline_ms: f.or("deadline_ms", fallback.deadline_ms)?,
        })
    }
}

impl TrackerConfig {
    /// Refuses a deadline at or before `now` (rule E-60): call it before creating a call, so
    /// nothing is sent. `deadline_ms` is an absolute time; a duration given for it (`60_000`)
    /// would create the work and stop watching it at once.
    ///
    /// ```
    /// use longcall::tracker::TrackerConfig;
    /// let config = TrackerConfig { deadline_ms: Some(60_000), ..TrackerConfig::default() };
    /// let now = 1_764_000_000_000;
    /// assert_eq!(config.refuse_passed_deadline(now).unwrap_err().code(), "invalid_config");
    /// let config = TrackerConfig { deadline_ms: Some(now + 60_000), ..config };
    /// assert!(config.refuse_passed_deadline(now).is_ok());
    /// ```
    pub fn refuse_passed_deadline(&self, now: u64) -> Result<(), Error> {
        match self.deadline_ms {
            Some(deadline) if deadline <= now => Err(Error::invalid_config(
                "deadline_ms",
                &Text::new()
                    .n(deadline)
                    .s(" has passed (now is ")
                    .n(now)
                    .s("): it is an absolute time, now + how long to watch, not a duration")
                    .done(),
            )),
            _ => Ok(()),
        }
    }
}

/// Why a stopped tracker refuses input: watching ended without an outcome, and a late answer
/// cannot change that.
const STOPPED: &str = "this tracker stopped watching; start a new one from the handle to resume";

/// Where an observation came from.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Source {
    Created,
    Poll,
    Notification,
    CancelAnswer,
    /// 2025: a `tasks/result` answer, which comes only once the task is terminal.
    ResultAnswer,
}

/// One open MRTR round of a 2026 `tools/call`: what the server asked and what was answered.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub(super) struct MrtrRound {
    /// Keys asked in this round, in the server's order.
    asked: Vec<String>,
    /// Answers given so far (each key once).
    answers: Vec<(String, Json)>,
    /// The server's `requestState`, echoed unchanged.
    request_state: Option<Json>,
    /// The continuation was sent; its answer is awaited.
    sent: bool,
}

// Read member by member from a `Value` object (`crate::tagged`): a derived reader would also
// compile an array form nobody writes.
impl<'de> Deserialize<'de> for MrtrRound {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut f = crate::tagged::members(d, "struct MrtrRound")?;
        Ok(MrtrRound {
            asked: f.req("asked")?,
            answers: f.req("answers")?,
            request_state: f.opt("request_state")?,
            sent: f.req("sent")?,
        })
    }
}

/// Where the call is, as far as the tracker knows: one explicit state (h11 style), each variant
/// with what it needs.
#[derive(Clone, Debug, PartialEq)]
enum Call {
    /// The creating request is out and no handle is known. 2026: an MRTR round of the
    /// `tools/call` may be open (asked, partly answered, or continued and awaiting its answer).
    Creating {
        /// The round, if the call asked for inputs.
        round: Option<MrtrRound>,
    },
    /// The handle is known: polling, answering inputs, cancelling.
    Watching(Watch),
}

/// How watching ended, once it did. The [`Call`] stays as it was, so late answers are still
/// checked against it (a second terminal status, a cancel answer still awaited).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Ended {
    /// The call settled with this verified outcome (O-10).
    Settled(Outcome),
    /// Watching ended without an outcome; the call goes on.
    Stopped(StopReason),
}

/// What watching a handle needs. The armed poll, the floors' anchor and the deadlines are the
/// poll schedule's ([`PollSchedule::arm`]), decided there once.
#[derive(Clone, Debug, PartialEq)]
struct Watch {
    handle: String,
    /// The TTL's anchor (host time): when the creating answer arrived, or for a handle resumed
    /// with [`Tracker::watch`] the first answer that stated a TTL. `None` until then (a job has
    /// none).
    created_at: Option<u64>,
    /// 2026 (O-8): the task was created already terminal (a `CreateTaskResult` is a `Task`, with
    /// no payload); the confirming `tasks/get` carries the result or error.
    born_terminal: bool,
    /// A `tasks/get` / `jobs_get` is out.
    poll_in_flight: bool,
    /// The cancel request, once pressed.
    cancel: CancelProgress,
    /// A job's cancel was answered 409 `job_generation_already_started`: the server said the
    /// job is processing, so a later `canceled` breaks the lifecycle even from `queued` (C-18).
    started_per_409: bool,
    /// 2026: the input keys and the answers sent with `tasks/update`.
    inputs: Inputs,
    /// 2025: `tasks/result`.
    result_fetch: ResultFetch,
}

impl Watch {
    fn new(handle: String) -> Watch {
        Watch {
            handle,
            created_at: None,
            born_terminal: false,
            poll_in_flight: false,
            cancel: CancelProgress::NotRequested,
            started_per_409: false,
            inputs: Inputs::default(),
            result_fetch: ResultFetch::NotSent,
        }
    }
}

/// The cancel request of a watched call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CancelProgress {
    /// Not pressed, or the request failed (the button reopened).
    NotRequested,
    /// Sent; its answer is awaited.
    InFlight,
    /// Answered: the call is being cancelled as far as the server said (its inputs are moot).
    Answered,
}

/// 2026 input: every key asked, answered or reused, ever, and the answers in `tasks/update`.
#[derive(Clone, Debug, Default, PartialEq)]
struct Inputs {
    keys: InputKeys,
    /// Answers sent but not acknowledged, re-sent on failure.
    unacked: Vec<(String, Json)>,
    /// A `tasks/update` is out.
    in_flight: bool,
    /// The last `tasks/update` failed: the unacknowledged answers go again with the next poll.
    resend: bool,
}

/// 2025: the `tasks/result` request of a watched task.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ResultFetch {
    /// Not sent (or it failed and may be sent again).
    NotSent,
    /// Sent; it blocks server-side until the task is terminal.
    InFlight,
    /// Answered with this payload.
    Answered(Payload),
}

/// One watched task or job. Create it with [`Tracker::new`], feed it with
/// [`Tracker::handle_input`] and [`Tracker::handle_timeout`], drain [`Tracker::poll_output`].
///
/// Its state is explicit: where the call is (creating, with an MRTR round or not; or watching a
/// handle, with what is in flight, the cancel's progress, the inputs and the 2025 result fetch)
/// and, once watching ended, whether it settled or stopped. Snapshots keep the shape they always
/// had (S-4; `tests/tracker_snapshots.rs` restores ones written before).
///
/// ```
/// use longcall::tracker::{Input, Output, Request, Tracker, TrackerConfig};
/// use longcall::view::JobView;
/// use longcall::{Model, Status};
///
/// let mut t = Tracker::new(Model::Job, TrackerConfig::default()).unwrap();
/// let job = JobView { id: "job_1".into(), status: Status::Queued, result: None, error: None };
/// t.handle_input(0, Input::JobCreated { job }).unwrap();
/// let wake = loop {
///     match t.poll_output() {
///         Output::WakeAt { at } => break at,
///         Output::Idle => unreachable!(),
///         _ => {}
///     }
/// };
/// t.handle_timeout(wake);
/// assert_eq!(
///     t.poll_output(),
///     Output::Send { request: Request::Get { handle: "job_1".into() } }
/// );
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Tracker {
    model: Model,
    /// Backoff, floors, TTL and watch deadlines, and the armed poll.
    schedule: PollSchedule,
    button: CancelButton,
    status: Option<Status>,
    call: Call,
    ended: Option<Ended>,
    /// The result and error exactly as the server sent them with the terminal status.
    result: Option<Json>,
    error: Option<Json>,
    last_observed_at: Option<u64>,
    polls_sent: u32,
    violations: Vec<Violation>,
    violation_count: u32,
    queue: VecDeque<Output>,
}

impl Snapshot for Tracker {
    const KIND: &'static str = "tracker";
}

impl Tracker {
    /// A tracker for a call of `model` whose handle is not known yet.
    ///
    /// Errors: an invalid poll policy.
    #[must_use = "a tracker does nothing until it is driven"]
    pub fn new(model: Model, config: TrackerConfig) -> Result<Tracker, Error> {
        let mut schedule =
            PollSchedule::new(config.poll, config.seed).map_err(|e| e.within("poll"))?;
        schedule.set_deadline(config.deadline_ms);
        Ok(Tracker {
            model,
            schedule,
            button: CancelButton::new(model),
            status: None,
            call: Call::Creating { round: None },
            ended: None,
            result: None,
            error: None,
            last_observed_at: None,
            polls_sent: 0,
            violations: Vec::new(),
            violation_count: 0,
            queue: VecDeque::new(),
        })
    }

    /// Starts watching a task or job whose id the host persisted: no status is assumed (the
    /// button stays `unavailable` until the first answer) and the first thing is a poll, sent at
    /// once.
    ///
    /// Errors: an empty id, or a tracker that already has a handle.
    pub fn watch(&mut self, handle: &str) -> Result<(), Error> {
        self.begin_watch(handle)?;
        self.send_poll(handle.into());
        Ok(())
    }

    /// Names the handle to watch, nothing sent yet.
    fn begin_watch(&mut self, handle: &str) -> Result<(), Error> {
        if handle.is_empty() {
            return Err(Error::invalid_input("id", "a handle must not be empty"));
        }
        if self.handle().is_some() || self.is_done() {
            return Err(Error::invalid_input("input", "the handle is already known"));
        }
        self.call = Call::Watching(Watch::new(handle.into()));
        Ok(())
    }

    /// Starts watching the handle of `earlier`, whose watching stopped with the call going on
    /// (P-16): its floors hold here, so the first poll goes no sooner than the end of its last
    /// poll plus the floor then in force (the server's interval included, which stays the floor
    /// until an answer states another) and never before its `Retry-After`; at once when it
    /// knew neither. Its status holds too, with the button it allows, unless a cancel was
    /// asked; without one, no status is assumed (E-6).
    ///
    /// Errors: `earlier` has no handle nor an MRTR round to go on with (E-70), or this tracker
    /// already has one.
    pub(crate) fn watch_after(&mut self, earlier: &Tracker) -> Result<(), Error> {
        let Some(handle) = earlier.handle() else {
            return self.continue_round_of(earlier);
        };
        match earlier.schedule.floors_until() {
            Some(at) => {
                self.begin_watch(handle)?;
                self.schedule.rearm(at);
            }
            None => self.watch(handle)?,
        }
        if let Some(ms) = earlier.schedule.server_interval_ms() {
            self.schedule.handle_server_interval(Some(ms));
        }
        // Stale but known, as a restored snapshot's status is: the view, and the cancel it
        // allows, are there before the first poll, which the floors may hold back. Not after a
        // cancel was asked: its answer, the earlier watch's, decides the button.
        if earlier.cancel() == CancelProgress::NotRequested {
            if let Some(status) = earlier.status.filter(|s| !s.is_terminal()) {
                let before = self.button.state();
                self.set_status(status);
                self.sync_button(before);
            }
        }
        Ok(())
    }

    /// E-70: goes on with the MRTR round `earlier` was stopped in, before its continuation
    /// went out: the answers given so far are kept (the host asks the open prompts again), and
    /// a round that asked nothing is continued when its `Retry-After` allows, at once without.
    fn continue_round_of(&mut self, earlier: &Tracker) -> Result<(), Error> {
        let Some(round) = earlier.round().filter(|r| !r.sent) else {
            return Err(Error::invalid_input(
                "handle",
                "the earlier call has no handle and no MRTR round to go on with",
            ));
        };
        if self.handle().is_some() || self.round().is_some() || self.is_done() {
            return Err(Error::invalid_input(
                "input",
                "this call is already under way",
            ));
        }
        let waiting = round.asked.is_empty();
        self.call = Call::Creating {
            round: Some(round.clone()),
        };
        if waiting {
            self.schedule
                .rearm(earlier.schedule.floors_until().unwrap_or(0));
        }
        Ok(())
    }

    /// A call stopped in an MRTR round whose continuation has not gone out (E-70).
    pub(crate) fn round_open(&self) -> bool {
        self.round().is_some_and(|r| !r.sent)
    }

    /// The model.
    #[must_use]
    pub fn model(&self) -> Model {
        self.model
    }

    /// The task or job id, once known.
    #[must_use]
    pub fn handle(&self) -> Option<&str> {
        self.watching().map(|w| w.handle.as_str())
    }

    /// The status held (the first terminal one, once seen).
    #[must_use]
    pub fn status(&self) -> Option<Status> {
        self.status
    }

    /// What the cancel button shows.
    #[must_use]
    pub fn button(&self) -> ButtonState {
        self.button.state()
    }

    /// The verified outcome, once settled.
    #[must_use]
    pub fn outcome(&self) -> Option<Outcome> {
        match self.ended {
            Some(Ended::Settled(outcome)) => Some(outcome),
            _ => None,
        }
    }

    /// Why watching stopped without an outcome, once it did.
    #[must_use]
    pub fn stopped(&self) -> Option<StopReason> {
        match self.ended {
            Some(Ended::Stopped(reason)) => Some(reason),
            _ => None,
        }
    }

    /// Gives back the spare capacity of the output queue. A host that holds many trackers idle
    /// between events (a watch list) calls it after draining, trading one allocation on the
    /// next event for memory while idle.
    pub fn release_spare_capacity(&mut self) {
        if self.queue.is_empty() {
            self.queue = VecDeque::new();
        }
    }

    /// True once settled or stopped: no more requests will be asked for.
    #[must_use]
    pub fn is_done(&self) -> bool {
        self.ended.is_some()
    }

    /// The requests this tracker counts as out, awaiting an answer: what a host restored from a
    /// snapshot must hold a request for, or tell as lost ([`crate::endpoint::CallEndpoint::restore`]).
    pub(crate) fn requests_in_flight(&self) -> impl Iterator<Item = RequestKind> + '_ {
        let w = self.watching();
        [
            (RequestKind::Get, self.poll_in_flight()),
            (RequestKind::FetchResult, self.fetch_in_flight()),
            (
                RequestKind::Cancel,
                self.cancel() == CancelProgress::InFlight,
            ),
            (RequestKind::Update, w.is_some_and(|w| w.inputs.in_flight)),
        ]
        .into_iter()
        .filter_map(|(kind, out)| out.then_some(kind))
    }

    /// The poll policy this tracker follows (its retry schedule also spaces re-sent creates).
    pub(crate) fn poll_policy(&self) -> &crate::poll::PollPolicy {
        self.schedule.policy()
    }

    /// The next time [`Tracker::handle_timeout`] has work, if any: the armed poll or the watch
    /// deadline ([`PollSchedule::next_wake`]).
    #[must_use]
    pub fn poll_timeout(&self) -> Option<u64> {
        if self.is_done() {
            return None;
        }
        self.schedule.next_wake()
    }

    /// The run record a host shows or stores.
    #[must_use]
    pub fn record(&self) -> RunRecord {
        RunRecord {
            model: self.model,
            handle: self.handle().map(String::from),
            status: self.status,
            poll_interval_ms: self.schedule.server_interval_ms(),
            last_observed_at: self.last_observed_at,
            next_poll_at: self.poll_timeout(),
            ttl_deadline: self.schedule.ttl_deadline(),
            polls_sent: self.polls_sent,
            cancel: self.button.state(),
            outcome: self.outcome(),
            stopped: self.stopped(),
            violations: self.violations.clone(),
            violation_count: self.violation_count,
            result: self.result.clone(),
            error: self.error.clone(),
        }
    }

    /// The next output. Call it after every `handle_*` until it returns [`Output::WakeAt`] or
    /// [`Output::Idle`].
    #[must_use = "an output is an action for the host or the wake-up time"]
    pub fn poll_output(&mut self) -> Output {
        if let Some(out) = self.queue.pop_front() {
            return out;
        }
        match self.poll_timeout() {
            Some(at) => Output::WakeAt { at },
            None => Output::Idle,
        }
    }

    /// Drains every pending output, ending with the [`Output::WakeAt`] or [`Output::Idle`].
    #[must_use = "the outputs are actions for the host and the wake-up time"]
    pub fn drain(&mut self) -> Vec<Output> {
        let mut out = Vec::with_capacity(self.queue.len() + 1);
        loop {
            let o = self.poll_output();
            let last = matches!(o, Output::WakeAt { .. } | Output::Idle);
            out.push(o);
            if last {
                return out;
            }
        }
    }

    /// A person comes to look (a page reloaded, a job resumed from its record, a view back on
    /// screen): the next poll moves to the earliest time the floors allow (rule P-15), so what
    /// is shown is the present, not what the schedule last saw. Nothing is sent from here; the
    /// next [`Output::WakeAt`] says when. A poll already out, or a call not yet named or ended, is
    /// left as it is.
    pub fn handle_refresh(&mut self, now: u64) {
        if !self.is_done() {
            self.schedule.handle_refresh(now);
        }
    }

    /// Time passed. Call it at (or after) the time of the last [`Output::WakeAt`]; earlier calls
    /// do nothing.
    pub fn handle_timeout(&mut self, now: u64) {
        if self.is_done() {
            return;
        }
        match self.schedule.handle_timeout(now) {
            Due::Nothing => return,
            Due::DeadlinePassed => {
                self.stop(StopReason::Deadline);
                return;
            }
            Due::Poll => {}
        }
        let w = match &mut self.call {
            Call::Watching(w) => w,
            // E-69: the continuation of a round that asked nothing is due (only such a round
            // arms the schedule before a handle is known).
            Call::Creating { round } => {
                if let Some(round) = round {
                    round.sent = true;
                    let request_state = round.request_state.take();
                    self.send(Request::ContinueCall {
                        responses: Vec::new(),
                        request_state,
                    });
                }
                return;
            }
        };
        let handle = w.handle.clone();
        // A failed tasks/update goes again with the poll, with every answer not yet acked.
        let inputs = &mut w.inputs;
        let resend = if inputs.resend && !inputs.unacked.is_empty() && !inputs.in_flight {
            inputs.resend = false;
            inputs.in_flight = true;
            Some(inputs.unacked.clone())
        } else {
            None
        };
        if let Some(responses) = resend {
            self.send(Request::Update {
                handle: handle.clone(),
                responses,
            });
        }
        if self.result_fetch_due() {
            self.send_fetch(handle);
        } else if !self.poll_in_flight() {
            self.send_poll(handle);
        }
    }

    /// A poll answer reduced to numbers: the allocation-free form of [`Input::TaskPolled`] and
    /// [`Input::JobPolled`] for per-event hot paths (no input requests; a 2026 `input_required`
    /// answer carries them, so it goes through [`Tracker::handle_input`]). Same rules, same
    /// outputs, same errors.
    pub fn handle_polled(&mut self, now: u64, polled: Polled) -> Result<(), Error> {
        if self.stopped().is_some() {
            return Err(Error::invalid_input("input", STOPPED));
        }
        polled.status.expect_in(self.model)?;
        if self.handle().is_none() {
            return Err(Error::invalid_input(
                "input",
                "no handle yet: feed the creating answer first",
            ));
        }
        if self.model.is_task() {
            self.observe_task(now, Source::Poll, polled, &[]);
        } else {
            self.observe_job(now, Source::Poll, polled.status);
        }
        Ok(())
    }

    /// Something happened. Errors are typed, send nothing on the wire, and leave the tracker as
    /// it was (a refused cancel press, an input of another model, an unknown input key, ...).
    pub fn handle_input(&mut self, now: u64, input: Input) -> Result<(), Error> {
        // Stopped means watching ended without an outcome; a late answer cannot change that.
        // Resume from the handle with a new tracker instead. (A cancel press is refused as
        // such, by `handle_cancel_pressed`.)
        if !matches!(input, Input::CancelPressed | Input::StopWatching) {
            self.refuse_stopped()?;
        }
        match input {
            Input::TaskCreated { task } => self.on_task(now, task, Source::Created),
            Input::TaskPolled { task } => self.on_task(now, task, Source::Poll),
            Input::TaskNotified { task } => self.on_task(now, task, Source::Notification),
            Input::JobCreated { job } => self.on_job(now, job, Source::Created),
            Input::JobPolled { job } => self.on_job(now, job, Source::Poll),
            Input::CallInputRequired {
                input_requests,
                request_state,
            } => self.on_call_input_required(now, input_requests, request_state),
            Input::CallResult { result } => self.on_call_answer(Some(result), None),
            Input::CallError { error } => self.on_call_answer(None, Some(error)),
            Input::AnswerTooLarge { .. } => {
                self.stop(StopReason::AnswerTooLarge);
                Ok(())
            }
            Input::CreateUnanswered => {
                if self.handle().is_some() {
                    return Err(Error::invalid_input("input", "the handle is already known"));
                }
                self.stop(StopReason::CreateUnanswered);
                Ok(())
            }
            Input::SubmitRefused { error, .. } => self.on_submit_refused(error),
            Input::ResultFetched { result } => {
                let payload = Payload {
                    result: Some(result.is_error),
                    error: false,
                };
                self.on_fetched(now, payload, Some(result.value), None)
            }
            Input::CancelAnswered { answer } => self.on_cancel_answer(now, answer),
            Input::UpdateAcked => {
                self.on_update_acked();
                Ok(())
            }
            Input::RequestFailed { request, failure } => {
                self.on_request_failed(now, request, failure)
            }
            Input::CancelPressed => self.handle_cancel_pressed(),
            Input::InputAnswered { key, response } => self.on_input_answered(now, key, response),
            Input::StopWatching => {
                self.handle_stop_watching();
                Ok(())
            }
        }
    }

    // The inputs that carry no payload, one method each: the numbers-only forms of
    // `handle_input` for per-event hot paths and small builds, which then never link the JSON
    // values the other inputs carry (the same rules, outputs and errors).

    /// The creating answer, reduced to numbers: [`Input::TaskCreated`] (a task with this id,
    /// status and `pollIntervalMs`, no TTL, payload or input requests) for a task model, or
    /// [`Input::JobCreated`] (the interval ignored) for a job.
    ///
    /// ```
    /// use longcall::tracker::{Output, Tracker, TrackerConfig};
    /// use longcall::{Model, Status};
    ///
    /// let mut t = Tracker::new(Model::Task2026, TrackerConfig::default())?;
    /// t.handle_created(0, "task_1", Status::Working, Some(2_000))?;
    /// // The server's interval is a floor (P-3).
    /// assert_eq!(t.drain().last(), Some(&Output::WakeAt { at: 2_000 }));
    /// # Ok::<(), longcall::Error>(())
    /// ```
    pub fn handle_created(
        &mut self,
        now: u64,
        handle: &str,
        status: Status,
        poll_interval_ms: Option<u64>,
    ) -> Result<(), Error> {
        self.refuse_stopped()?;
        if self.model.is_task() {
            self.admit_task(handle, status, Source::Created)?;
            let polled = Polled {
                status,
                poll_interval_ms,
                ttl_ms: Ttl::NotGiven,
                payload: Payload::NONE,
            };
            self.observe_task(now, Source::Created, polled, &[]);
        } else {
            self.admit_job(handle, status, Source::Created)?;
            self.observe_job(now, Source::Created, status);
        }
        Ok(())
    }

    /// [`Input::CancelPressed`]: the user pressed the cancel button.
    pub fn handle_cancel_pressed(&mut self) -> Result<(), Error> {
        if self.stopped().is_some() {
            return Err(Error::CancelRefused {
                state: self.button.state(),
                reason: "this tracker stopped watching",
            });
        }
        self.on_cancel_pressed()
    }

    /// [`Input::CancelAnswered`]: the cancel request was answered.
    pub fn handle_cancel_answered(&mut self, now: u64, answer: CancelAnswer) -> Result<(), Error> {
        self.refuse_stopped()?;
        self.on_cancel_answer(now, answer)
    }

    /// [`Input::UpdateAcked`]: `tasks/update` was acknowledged.
    pub fn handle_update_acked(&mut self) -> Result<(), Error> {
        self.refuse_stopped()?;
        self.on_update_acked();
        Ok(())
    }

    /// [`Input::RequestFailed`]: a request failed without a usable answer.
    pub fn handle_request_failed(
        &mut self,
        now: u64,
        request: RequestKind,
        failure: Failure,
    ) -> Result<(), Error> {
        self.refuse_stopped()?;
        self.on_request_failed(now, request, failure)
    }

    /// [`Input::RequestFailed`] without a JSON-RPC error: an HTTP error answer with this status,
    /// its envelope's error `code` ([`JobErrorCode::None`] when the body had none, as a proxy's
    /// HTML page) and Retry-After, or no answer at all (`http_status` `None`:
    /// [`Failure::Transport`]). Only a 404 whose code is `not_found` loses a job (O-6).
    pub fn handle_request_failed_http(
        &mut self,
        now: u64,
        request: RequestKind,
        http_status: Option<u16>,
        code: JobErrorCode,
        retry_after_ms: Option<u64>,
    ) -> Result<(), Error> {
        self.refuse_stopped()?;
        let http = http_status.map(|status| HttpFailure {
            status,
            code,
            retry_after_ms,
        });
        self.on_failure(now, request, http)
    }

    /// An HTTP answer's `Retry-After`, whatever its body carried (a 429 or 503 whose body is a
    /// JSON-RPC error): no request before `now + delay_ms` (P-4). Call it before handing over
    /// what the body says; [`Failure::Http`] carries its own.
    pub fn handle_retry_after(&mut self, now: u64, delay_ms: u64) {
        self.schedule.handle_retry_after(now, delay_ms);
    }

    /// [`Input::StopWatching`]: the host stops watching (C-17: not a cancel, nothing is sent).
    pub fn handle_stop_watching(&mut self) {
        self.stop(StopReason::HostStopped);
    }

    fn on_request_failed(
        &mut self,
        now: u64,
        request: RequestKind,
        failure: Failure,
    ) -> Result<(), Error> {
        match failure {
            Failure::Rpc { error } => self.on_rpc_failure(now, request, error),
            Failure::Http {
                status,
                code,
                retry_after_ms,
            } => {
                let code = JobErrorCode::parse(code.as_deref().unwrap_or(""));
                let http = HttpFailure {
                    status,
                    code,
                    retry_after_ms,
                };
                self.on_failure(now, request, Some(http))
            }
            Failure::Transport => self.on_failure(now, request, None),
        }
    }

    fn on_update_acked(&mut self) {
        if let Some(w) = self.watching_mut() {
            w.inputs.in_flight = false;
            w.inputs.unacked.clear();
        }
    }

    /// Stopped means watching ended without an outcome; a late answer cannot change that.
    fn refuse_stopped(&self) -> Result<(), Error> {
        match self.stopped() {
            Some(_) => Err(Error::invalid_input("input", STOPPED)),
            None => Ok(()),
        }
    }

    fn watching(&self) -> Option<&Watch> {
        match &self.call {
            Call::Watching(w) => Some(w),
            Call::Creating { .. } => None,
        }
    }

    fn watching_mut(&mut self) -> Option<&mut Watch> {
        match &mut self.call {
            Call::Watching(w) => Some(w),
            Call::Creating { .. } => None,
        }
    }

    /// The MRTR round of the call, while it is being created.
    fn round(&self) -> Option<&MrtrRound> {
        match &self.call {
            Call::Creating { round } => round.as_ref(),
            Call::Watching(_) => None,
        }
    }

    fn poll_in_flight(&self) -> bool {
        self.watching().is_some_and(|w| w.poll_in_flight)
    }

    fn fetch_in_flight(&self) -> bool {
        self.watching()
            .is_some_and(|w| w.result_fetch == ResultFetch::InFlight)
    }

    fn cancel(&self) -> CancelProgress {
        self.watching()
            .map_or(CancelProgress::NotRequested, |w| w.cancel)
    }

    // --- observations ---------------------------------------------------------------------

    fn on_task(&mut self, now: u64, task: TaskView, source: Source) -> Result<(), Error> {
        if !self.admit_task(&task.task_id, task.status, source)? {
            return Ok(()); // a notification about another task: kept out, never fatal (P-11)
        }
        let payload = Payload {
            result: task.result.as_ref().map(|r| r.is_error),
            error: task.error.is_some(),
        };
        if task.status.is_terminal() && self.outcome().is_none() {
            self.keep_payload(
                task.result.map(|r| r.value),
                task.error.map(|e| error_json(&e)),
            );
        }
        let polled = Polled {
            status: task.status,
            poll_interval_ms: task.poll_interval_ms,
            ttl_ms: task.ttl_ms,
            payload,
        };
        self.observe_task(now, source, polled, &task.input_requests);
        Ok(())
    }

    /// Checks a task observation's model, status and id (the creating answer starts watching
    /// it); false for a notification about another task.
    fn admit_task(&mut self, id: &str, status: Status, source: Source) -> Result<bool, Error> {
        self.expect_task()?;
        status.expect_in(self.model)?;
        if source == Source::Created && self.handle().is_none() {
            if self.is_done() {
                return Err(Error::invalid_input(
                    "input",
                    "the call was already answered",
                ));
            }
            self.mrtr_answered()?;
        }
        self.accept_handle(id, source)
    }

    /// A task observation whose id was checked.
    fn observe_task(&mut self, now: u64, source: Source, p: Polled, inputs: &[InputRequest]) {
        self.note_answer(now, source);
        if let Some(ms) = p.poll_interval_ms {
            // A floor raised by a notification also holds the poll already armed (P-3).
            self.schedule.handle_server_interval(Some(ms));
        }
        if let Some(w) = self.watching_mut() {
            if source == Source::Created {
                w.created_at = Some(now);
            }
        }
        // P-7: ttlMs (2025: ttl) is required on every task and may change with any answer. It is
        // measured from when the host received the handle, so clock skew between host and
        // server cannot expire a handle early. An answer without it (a violation the reader
        // records) says nothing, so the TTL in force stands; `null` lifts it.
        match p.ttl_ms {
            Ttl::NotGiven => {}
            Ttl::Unlimited => self.schedule.set_ttl_deadline(None),
            // A handle resumed with `watch` counts from the first answer that states a TTL:
            // counted from each answer, its end would slide past the server's.
            Ttl::Ms(ttl) => {
                let anchor = self
                    .watching_mut()
                    .map_or(now, |w| *w.created_at.get_or_insert(now));
                self.schedule.set_ttl_deadline(Some(later(anchor, ttl)));
            }
        }
        self.observe_status(p.status, source);
        let status = self.status.unwrap_or(p.status);
        if status == Status::InputRequired {
            self.on_input_requests(inputs);
        } else if let Some(w) = self.watching_mut() {
            w.inputs.keys.moved_on();
        }
        if source == Source::Created
            && self.outcome().is_none()
            && self.model == Model::Task2026
            && matches!(status, Status::Completed | Status::Failed)
            && p.payload == Payload::NONE
        {
            // Born terminal (rule O-8): a CreateTaskResult is a Task, never a DetailedTask, so
            // its result or error is read with one tasks/get, sent at once (the server created
            // the task durably before answering).
            if let Some(w) = self.watching_mut() {
                w.born_terminal = true;
                let handle = w.handle.clone();
                self.send_poll(handle);
            }
        } else if status.is_terminal() {
            self.on_terminal(status, p.payload);
        } else if self.model == Model::Task2025 && status == Status::InputRequired {
            // 2025 (I-8): the input requests travel on the tasks/result stream; stop polling while
            // it is open (the spec's "poll until terminal or input_required").
            if let Some(w) = self.watching() {
                if w.result_fetch == ResultFetch::NotSent {
                    let handle = w.handle.clone();
                    self.send_fetch(handle);
                }
            }
            if self.fetch_in_flight() {
                self.schedule.disarm();
            } else {
                self.plan_after(now, source);
            }
        } else {
            self.plan_after(now, source);
        }
    }

    fn on_job(&mut self, now: u64, job: JobView, source: Source) -> Result<(), Error> {
        if !self.admit_job(&job.id, job.status, source)? {
            return Ok(());
        }
        if job.status.is_terminal() && self.outcome().is_none() {
            self.keep_payload(job.result, job.error);
        }
        self.observe_job(now, source, job.status);
        Ok(())
    }

    /// Checks a job observation's model, status and id (the creating answer starts watching
    /// it).
    fn admit_job(&mut self, id: &str, status: Status, source: Source) -> Result<bool, Error> {
        if self.model != Model::Job {
            return Err(Error::WrongModel {
                expected: self.model,
                got: Model::Job,
            });
        }
        status.expect_in(Model::Job)?;
        self.accept_handle(id, source)
    }

    /// A job observation whose id was checked.
    fn observe_job(&mut self, now: u64, source: Source, status: Status) {
        self.note_answer(now, source);
        self.observe_status(status, source);
        match self.status {
            Some(s) if s.is_terminal() => self.on_terminal(s, Payload::NONE),
            _ => self.plan_after(now, source),
        }
    }

    /// Checks the id of an observation against the handle; the creating answer starts watching
    /// it. Returns false for a notification about another task.
    fn accept_handle(&mut self, id: &str, source: Source) -> Result<bool, Error> {
        match (self.handle(), source) {
            (None, Source::Created) => {
                if id.is_empty() {
                    return Err(Error::invalid_input("id", "a handle must not be empty"));
                }
                self.call = Call::Watching(Watch::new(id.into()));
                Ok(true)
            }
            (None, _) => Err(Error::invalid_input(
                "input",
                "no handle yet: feed the creating answer first",
            )),
            (Some(_), Source::Created) => {
                Err(Error::invalid_input("input", "the handle is already known"))
            }
            (Some(h), _) if h == id => Ok(true),
            (Some(_), Source::Notification) => Ok(false),
            (Some(h), _) => Err(Error::InvalidInput {
                field: "id".into(),
                reason: Text::new()
                    .s("this tracker watches ")
                    .q(h)
                    .s(", not ")
                    .q(id)
                    .done(),
            }),
        }
    }

    fn note_answer(&mut self, now: u64, source: Source) {
        if matches!(source, Source::Poll | Source::Created) {
            self.schedule.handle_poll_answered();
            self.schedule.handle_poll_ended(now);
        }
        if source == Source::Poll {
            if let Some(w) = self.watching_mut() {
                w.poll_in_flight = false;
            }
        }
        self.last_observed_at = Some(now);
    }

    /// Accepts a status if the model explains it; keeps the first terminal status.
    fn observe_status(&mut self, status: Status, source: Source) {
        let before = self.button.state();
        if self.watching().is_some_and(|w| w.started_per_409)
            && status.is_cancelled()
            && self
                .status
                .is_some_and(|s| !s.is_terminal() && s != Status::Processing)
        {
            // Rule C-18: the 409 said generation had started, so the job is processing as far as
            // the rules go, and processing -> canceled is never legal. The server's final word
            // stands (the job settles cancelled), but never silently.
            self.violate(
                Rule::IllegalTransition,
                "canceled after the cancel was answered 409 job_generation_already_started",
            );
        }
        match self.status {
            None => {
                if source == Source::Created {
                    if let Ok(Seed::Violation) = lifecycle::seed(self.model, status) {
                        self.violate(
                            Rule::BadSeed,
                            Text::new()
                                .s(self.model.as_str())
                                .s(" task created ")
                                .s(status.as_str())
                                .s(": it must start working")
                                .done(),
                        );
                    }
                }
                self.set_status(status);
            }
            Some(prev) => match lifecycle::observe(self.model, prev, status) {
                // The button hears a repeated status too: after a cancel answer that decided
                // nothing, the next status decides even when it is the same one (C-20). Not the
                // status that answer carried itself: that answer is what is in doubt.
                Ok(Observation::Repeat) => {
                    if source != Source::CancelAnswer {
                        let _ = self.button.handle_status(status);
                    }
                }
                Ok(Observation::Advance | Observation::Skipped) => {
                    self.schedule.handle_progress();
                    self.set_status(status);
                }
                Ok(Observation::Regression) => {
                    self.violate(
                        Rule::IllegalTransition,
                        Text::new()
                            .s(prev.as_str())
                            .s(" then ")
                            .s(status.as_str())
                            .done(),
                    );
                }
                Ok(Observation::TerminalConflict) => {
                    self.violate(
                        Rule::TerminalConflict,
                        Text::new()
                            .s(status.as_str())
                            .s(" after terminal ")
                            .s(prev.as_str())
                            .s("; ")
                            .s(prev.as_str())
                            .s(" stands")
                            .done(),
                    );
                }
                Err(_) => {}
            },
        }
        self.sync_button(before);
    }

    fn set_status(&mut self, status: Status) {
        self.status = Some(status);
        // The status was checked against the model before it got here, so the button cannot
        // refuse it; the new state is read by sync_button.
        let _ = self.button.handle_status(status);
        self.queue.push_back(Output::Status { status });
    }

    fn on_input_requests(&mut self, inputs: &[InputRequest]) {
        if self.model != Model::Task2026 {
            return;
        }
        let cancelling = self.cancel() != CancelProgress::NotRequested;
        let Some(w) = self.watching_mut() else {
            return;
        };
        // The book is taken out while violations and prompts are queued, and put back after.
        let mut keys = core::mem::take(&mut w.inputs.keys);
        keys.consumed_unless_listed(|k| inputs.iter().any(|r| r.key == k));
        for req in inputs {
            match keys.get(&req.key) {
                Some(KeyState::Answered { moved_on: true }) => {
                    keys.set(&req.key, KeyState::Reused);
                    self.violate(
                        Rule::InputKeyReused,
                        Text::new()
                            .s("input key ")
                            .q(&req.key)
                            .s(" asked again after it was answered")
                            .done(),
                    );
                }
                // Answered and the task has not moved on: the eventually consistent echo of
                // our own tasks/update, not a new question. Asked: asked once is enough.
                Some(
                    KeyState::Answered { moved_on: false } | KeyState::Asked | KeyState::Reused,
                ) => {}
                None if cancelling => {}
                None => {
                    keys.set(&req.key, KeyState::Asked);
                    self.queue.push_back(Output::AskUser {
                        key: req.key.clone(),
                        request: req.request.clone(),
                        call: false,
                    });
                }
            }
        }
        if let Some(w) = self.watching_mut() {
            w.inputs.keys = keys;
        }
    }

    fn on_terminal(&mut self, status: Status, payload: Payload) {
        if self.outcome().is_some() {
            return;
        }
        self.schedule.disarm();
        if !outcome::needs_result_fetch(self.model, status) {
            self.settle_classified(status, payload);
            return;
        }
        match self.watching().map(|w| w.result_fetch) {
            Some(ResultFetch::Answered(fetched)) => self.settle_classified(status, fetched),
            Some(ResultFetch::NotSent) => {
                if let Some(handle) = self.handle().map(String::from) {
                    self.send_fetch(handle);
                }
            }
            Some(ResultFetch::InFlight) | None => {}
        }
    }

    fn settle_classified(&mut self, status: Status, payload: Payload) {
        match outcome::classify(self.model, status, payload) {
            Ok((outcome, rule)) => {
                if let Some(rule) = rule {
                    self.violate(
                        rule,
                        Text::new()
                            .s(status.as_str())
                            .s(" with ")
                            .s(payload.as_str())
                            .done(),
                    );
                }
                self.settle(outcome, Some(status));
            }
            Err(_) => self.settle(Outcome::ProtocolFailure, Some(status)),
        }
    }

    fn on_call_answer(
        &mut self,
        result: Option<ToolResult>,
        error: Option<RpcError>,
    ) -> Result<(), Error> {
        self.expect_task()?;
        if self.handle().is_some() || self.is_done() {
            return Err(Error::invalid_input(
                "input",
                "the call was already answered",
            ));
        }
        self.mrtr_answered()?;
        self.end_call_button();
        let outcome = match (&result, &error) {
            (Some(r), _) if r.is_error => Outcome::ToolError,
            (Some(_), _) => Outcome::Succeeded,
            _ => Outcome::ProtocolFailure,
        };
        self.keep_payload(result.map(|r| r.value), error.map(|e| error_json(&e)));
        self.settle(outcome, None);
        Ok(())
    }

    /// The call was answered without a task: the button ends as a completed call's would
    /// (every model speaks `completed`), since there is nothing left to cancel.
    fn end_call_button(&mut self) {
        let before = self.button.state();
        let _ = self.button.handle_status(Status::Completed);
        self.sync_button(before);
    }

    /// E-11: no job was made, so the call ends here, with the API's error as its error. The
    /// button ends as for any failed job (a press held for the submit has nothing to cancel).
    fn on_submit_refused(&mut self, error: Option<Json>) -> Result<(), Error> {
        if self.model != Model::Job {
            return Err(Error::WrongModel {
                expected: self.model,
                got: Model::Job,
            });
        }
        if self.handle().is_some() || self.is_done() {
            return Err(Error::invalid_input(
                "input",
                "the submit was already answered",
            ));
        }
        let before = self.button.state();
        let _ = self.button.handle_status(Status::Failed);
        self.sync_button(before);
        self.keep_payload(None, error);
        self.settle(Outcome::Failed, None);
        Ok(())
    }

    fn on_fetched(
        &mut self,
        now: u64,
        payload: Payload,
        result: Option<Json>,
        error: Option<Json>,
    ) -> Result<(), Error> {
        if self.model != Model::Task2025 {
            return Err(Error::invalid_input(
                "input",
                "tasks/result exists only in the 2025 revision",
            ));
        }
        let Some(w) = self.watching_mut() else {
            return Err(Error::invalid_input("input", "no handle yet"));
        };
        w.result_fetch = ResultFetch::Answered(payload);
        if self.outcome().is_none() {
            self.keep_payload(result, error);
        }
        match (self.status, payload.result) {
            (Some(s), _) if s.is_terminal() => self.on_terminal(s, payload),
            // Rule O-11: tasks/result answers only once the task is terminal, and a tool result
            // decides the status by the 2025 rules (isError maps to failed, else completed), so
            // it settles at once, without a confirming tasks/get.
            (_, Some(is_error)) => {
                let status = if is_error {
                    Status::Failed
                } else {
                    Status::Completed
                };
                self.last_observed_at = Some(now);
                self.observe_status(status, Source::ResultAnswer);
                let held = self.status.unwrap_or(status);
                if held.is_terminal() {
                    self.on_terminal(held, payload);
                } else {
                    self.plan(now);
                }
            }
            // A JSON-RPC error does not say which terminal status it stands for (a cancelled
            // task's tasks/result is not defined by the revision): look at the status now.
            _ => {
                self.schedule.handle_progress();
                self.plan(now);
            }
        }
        Ok(())
    }

    // --- cancel ---------------------------------------------------------------------------

    fn on_cancel_pressed(&mut self) -> Result<(), Error> {
        let Some(handle) = self.handle().map(String::from) else {
            let state = self.button.state();
            let reason = state.refusal().unwrap_or("there is no handle to cancel");
            return Err(Error::CancelRefused { state, reason });
        };
        self.button.press()?;
        self.queue.push_back(Output::Button {
            state: self.button.state(),
        });
        if let Some(w) = self.watching_mut() {
            w.cancel = CancelProgress::InFlight;
        }
        let idempotency_key =
            (self.model == Model::Job).then(|| Text::new().s(&handle).s(":cancel").done());
        self.send(Request::Cancel {
            handle,
            idempotency_key,
        });
        Ok(())
    }

    fn on_cancel_answer(&mut self, now: u64, answer: CancelAnswer) -> Result<(), Error> {
        if self.handle().is_none() {
            return Err(Error::invalid_input("input", "no handle yet"));
        }
        if self.cancel() != CancelProgress::InFlight {
            // An answer nobody asked for must not move the button: a host bug could make it lie.
            return Err(Error::invalid_input("input", NO_CANCEL_OUT));
        }
        let mut verdict = classify_answer(self.model, answer);
        let known_terminal = self.status.is_some_and(Status::is_terminal);
        if self.model == Model::Task2026 && verdict == CancelVerdict::NotFound && known_terminal {
            self.violate(
                Rule::CancelTerminalNotAcked,
                "tasks/cancel on a terminal task answered -32602, not the ack",
            );
            verdict = CancelVerdict::AlreadyFinished;
        }
        if let Some(rule) = verdict.violation() {
            self.violate(
                rule,
                answer
                    .describe(
                        Text::new()
                            .s(self.model.as_str())
                            .s(" cancel answered with "),
                    )
                    .done(),
            );
        }
        if let Some(w) = self.watching_mut() {
            w.cancel = if verdict == CancelVerdict::RequestFailed {
                CancelProgress::NotRequested
            } else {
                CancelProgress::Answered
            };
            if verdict == CancelVerdict::TooLate {
                w.started_per_409 = true;
            }
        }
        let before = self.button.state();
        // Never refused: the check above (the request in flight) holds exactly when the button
        // awaits this answer, as both were marked at the press.
        let _ = self.button.handle_verdict(verdict);
        self.sync_button(before);
        // An answer that carries the status is an observation too.
        let carried = match answer {
            CancelAnswer::Task { status } => Some(status.status()),
            CancelAnswer::Job { status } => Some(status.status()),
            _ => None,
        };
        if let Some(status) = carried.filter(|s| s.belongs_to(self.model)) {
            self.observe_status(status, Source::CancelAnswer);
            // O-13: a cancel answer carries a status, never the result or error of a call that
            // completed or failed first; the confirming observation (C-12) settles those, with
            // their payload. A cancelled call has none to wait for.
            if let Some(s) = self.status.filter(|s| s.is_cancelled()) {
                self.on_terminal(s, Payload::NONE);
            }
        }
        // After any answer one confirming observation is due: reset the backoff and look soon.
        if !self.is_done() && !self.poll_in_flight() && !self.fetch_in_flight() {
            self.schedule.handle_progress();
            self.plan(now);
        }
        Ok(())
    }

    // --- MRTR (2026 tools/call) ----------------------------------------------------------

    fn on_call_input_required(
        &mut self,
        now: u64,
        inputs: Vec<InputRequest>,
        request_state: Option<Json>,
    ) -> Result<(), Error> {
        if self.model != Model::Task2026 {
            return Err(Error::invalid_input(
                "input",
                "an InputRequiredResult on tools/call exists only in the 2026 revision",
            ));
        }
        if self.handle().is_some() || self.is_done() {
            return Err(Error::invalid_input(
                "input",
                "the call was already answered",
            ));
        }
        if self.round().is_some_and(|r| !r.sent) {
            return Err(Error::invalid_input(
                "input",
                "an input round of this call is still open; answer it first",
            ));
        }
        let request_state = request_state.filter(|s| !s.is_null());
        if inputs.is_empty() && request_state.is_none() {
            // Nothing to ask and no state to echo: the server broke the shape.
            self.violate(
                Rule::ResultContradictsStatus,
                "input_required result with neither inputRequests nor requestState",
            );
            self.end_call_button();
            self.settle(Outcome::ProtocolFailure, None);
            return Ok(());
        }
        // Each round is a request of its own (E-8): every key of it is asked once, in order,
        // a key of an earlier round too.
        let mut round = MrtrRound {
            request_state,
            ..MrtrRound::default()
        };
        if inputs.is_empty() {
            // E-69: the server is still waiting. Continue with its state when the schedule
            // says, as a poll would go: a server answering this again and again is polled.
            self.call = Call::Creating { round: Some(round) };
            self.plan(now);
            return Ok(());
        }
        for req in inputs {
            if round.asked.contains(&req.key) {
                continue;
            }
            round.asked.push(req.key.clone());
            self.queue.push_back(Output::AskUser {
                key: req.key,
                request: req.request,
                call: true,
            });
        }
        self.call = Call::Creating { round: Some(round) };
        Ok(())
    }

    /// An answer to the call arrived: an open MRTR round must have been continued first, and
    /// the answer closes it.
    fn mrtr_answered(&mut self) -> Result<(), Error> {
        if self.round().is_some_and(|r| !r.sent) {
            return Err(Error::invalid_input(
                "input",
                "an input round of this call is still open; answer it first",
            ));
        }
        if let Call::Creating { round } = &mut self.call {
            *round = None;
        }
        Ok(())
    }

    /// The continuation `tools/call` failed: an error answer is the call's answer
    /// (`on_rpc_failure`); no answer at all is the creating request unanswered (it may have been
    /// processed, so it is never sent again). Errors unless a continuation is awaited.
    fn continuation_awaited(&self) -> Result<(), Error> {
        if self.round().is_some_and(|r| r.sent) {
            Ok(())
        } else {
            Err(Error::invalid_input(
                "input",
                "no continuation of the call is waiting for an answer",
            ))
        }
    }

    fn on_call_input_answered(&mut self, key: String, response: Json) -> Result<(), Error> {
        let Call::Creating {
            round: Some(round), ..
        } = &mut self.call
        else {
            return Err(Error::invalid_input(
                "key",
                "this input key was never asked",
            ));
        };
        if round.sent || !round.asked.contains(&key) {
            return Err(Error::invalid_input(
                "key",
                "this input key was never asked in the open input round of the call",
            ));
        }
        if round.answers.iter().any(|(k, _)| *k == key) {
            return Err(Error::invalid_input(
                "key",
                "this input key was already answered; a key is answered once",
            ));
        }
        round.answers.push((key, response));
        if round.answers.len() == round.asked.len() {
            // Every key answered: continue the call once, with the server's own state.
            round.sent = true;
            let request = Request::ContinueCall {
                responses: round.answers.clone(),
                request_state: round.request_state.clone(),
            };
            self.send(request);
        }
        Ok(())
    }

    // --- input ----------------------------------------------------------------------------

    fn on_input_answered(&mut self, now: u64, key: String, response: Json) -> Result<(), Error> {
        // I-9: what answers an input request is the client's result, an object on the wire
        // (an elicitation's `{action, content}`); a bare string or number is no answer.
        if !response.is_object() {
            return Err(Error::invalid_input(
                "response",
                "an input answer is a JSON object (an elicitation's {action, content})",
            ));
        }
        if self.round().is_some() {
            return self.on_call_input_answered(key, response);
        }
        if self.model != Model::Task2026 {
            return Err(Error::invalid_input(
                "input",
                "input answers go through tasks/update, a 2026 method",
            ));
        }
        let done = self.is_done();
        let Some(w) = self.watching_mut() else {
            return Err(Error::invalid_input("input", "no handle yet"));
        };
        match w.inputs.keys.get(&key) {
            None => {
                return Err(Error::invalid_input(
                    "key",
                    "this input key was never asked",
                ))
            }
            Some(KeyState::Answered { .. } | KeyState::Reused) => {
                return Err(Error::invalid_input(
                    "key",
                    "this input key was already answered; a key is answered once",
                ))
            }
            Some(KeyState::Asked) => {}
        }
        if w.cancel != CancelProgress::NotRequested {
            return Err(Error::invalid_input(
                "key",
                "the task is being cancelled; its input requests are moot",
            ));
        }
        if done {
            return Err(Error::invalid_input("key", "the task already settled"));
        }
        w.inputs
            .keys
            .set(&key, KeyState::Answered { moved_on: false });
        w.inputs.unacked.push((key.clone(), response.clone()));
        w.inputs.in_flight = true;
        let handle = w.handle.clone();
        self.send(Request::Update {
            handle,
            responses: alloc::vec![(key, response)],
        });
        // The answer should move the task on: look again soon.
        self.schedule.handle_progress();
        if !self.poll_in_flight() {
            self.plan(now);
        }
        Ok(())
    }

    // --- failures -------------------------------------------------------------------------

    /// A request answered with a JSON-RPC error.
    fn on_rpc_failure(
        &mut self,
        now: u64,
        request: RequestKind,
        error: RpcError,
    ) -> Result<(), Error> {
        if request == RequestKind::ContinueCall {
            self.continuation_awaited()?;
            return self.on_call_answer(None, Some(error));
        }
        self.check_failure(request)?;
        let gone = self.model.is_task() && error.code == codes::INVALID_PARAMS;
        match request {
            RequestKind::Cancel => {
                let answer = CancelAnswer::RpcError { code: error.code };
                return self.on_cancel_answer(now, answer);
            }
            RequestKind::FetchResult if !gone => {
                // tasks/result answered the underlying JSON-RPC error: that is the payload.
                let error = Some(error_json(&error));
                return self.on_fetched(now, Payload::ERROR, None, error);
            }
            _ => {}
        }
        if gone && self.error.is_none() {
            // O-6: the answer that made the handle lost is why; the host shows it.
            self.error = Some(error_json(&error));
        }
        self.after_failure(now, request, gone)
    }

    /// A request failed with an HTTP error answer (`http`) or no answer (`None`); a JSON-RPC
    /// error goes to `on_rpc_failure`.
    fn on_failure(
        &mut self,
        now: u64,
        request: RequestKind,
        http: Option<HttpFailure>,
    ) -> Result<(), Error> {
        if request == RequestKind::ContinueCall {
            self.continuation_awaited()?;
            self.stop(StopReason::CreateUnanswered);
            return Ok(());
        }
        self.check_failure(request)?;
        // Retry-After (on a 429, or a 503 that says when to come back) is a floor for every
        // request that follows, a confirming poll after a failed cancel included (P-4).
        match http {
            Some(HttpFailure {
                status: 429,
                retry_after_ms,
                ..
            }) => self
                .schedule
                .handle_retry_after(now, retry_after_ms.unwrap_or(0)),
            Some(HttpFailure {
                retry_after_ms: Some(ms),
                ..
            }) => self.schedule.handle_retry_after(now, ms),
            _ => {}
        }
        // O-6: a job 404 is the job lost only when the API says so (`not_found`). A 404 with
        // another code, or with no envelope at all (a proxy's HTML page, a route the server does
        // not have), is not a job it does not know: polling goes on, bounded by the deadline.
        let gone = self.model == Model::Job
            && matches!(
                http,
                Some(HttpFailure {
                    status: 404,
                    code: JobErrorCode::NotFound,
                    ..
                })
            );
        if request == RequestKind::Cancel {
            // C-11: only a job API speaks in HTTP statuses; a task cancel failed at the HTTP
            // level (a proxy's 502, a server down) got no MCP answer, so it breaks no revision.
            let answer = match http {
                Some(HttpFailure { status, code, .. }) if self.model == Model::Job => {
                    CancelAnswer::JobError {
                        http_status: status,
                        code,
                        cancelable: None,
                    }
                }
                _ => CancelAnswer::NoAnswer,
            };
            return self.on_cancel_answer(now, answer);
        }
        self.after_failure(now, request, gone)
    }

    /// Refuses a failure of a request that is not out (checked before anything changes: an
    /// error leaves the tracker as it was).
    fn check_failure(&self, request: RequestKind) -> Result<(), Error> {
        if self.handle().is_none() {
            return Err(Error::invalid_input("input", "no handle yet"));
        }
        if request == RequestKind::Cancel && self.cancel() != CancelProgress::InFlight {
            return Err(Error::invalid_input("input", NO_CANCEL_OUT));
        }
        Ok(())
    }

    /// What a failed poll, update or result fetch leaves (a failed cancel and continuation are
    /// their callers'): `gone` is the handle reported unknown.
    fn after_failure(&mut self, now: u64, request: RequestKind, gone: bool) -> Result<(), Error> {
        match request {
            RequestKind::Get => {
                // A failed poll ends the poll too: the floors count from it (P-12).
                if let Some(w) = self.watching_mut() {
                    w.poll_in_flight = false;
                }
                self.schedule.handle_poll_failed();
                self.schedule.handle_poll_ended(now);
            }
            RequestKind::Update => {
                if let Some(w) = self.watching_mut() {
                    w.inputs.in_flight = false;
                    w.inputs.resend = !gone;
                }
            }
            RequestKind::FetchResult => {
                if let Some(w) = self.watching_mut() {
                    if w.result_fetch == ResultFetch::InFlight {
                        // Not answered: it may be asked again.
                        w.result_fetch = ResultFetch::NotSent;
                    }
                }
            }
            RequestKind::Cancel | RequestKind::ContinueCall => {}
        }
        if gone {
            self.lose();
            return Ok(());
        }
        if !self.poll_in_flight() && !self.fetch_in_flight() {
            self.plan(now);
        }
        Ok(())
    }

    // --- scheduling -----------------------------------------------------------------------

    /// After an observation: polls answer with the next poll; creation arms the first one;
    /// notifications leave the schedule alone unless nothing is armed.
    fn plan_after(&mut self, now: u64, source: Source) {
        if self.poll_in_flight() || self.is_done() {
            return;
        }
        if source != Source::Notification || self.schedule.armed().is_none() {
            self.plan(now);
        }
    }

    /// Arms the next poll ([`PollSchedule::arm`]), or ends watching when the schedule says so.
    fn plan(&mut self, now: u64) {
        if self.is_done() {
            return;
        }
        match self.schedule.arm(now) {
            None => {}
            Some(ScheduleEnd::TtlElapsed) => self.lose(),
            Some(ScheduleEnd::MaxPolls) => self.stop(StopReason::MaxPolls),
            Some(ScheduleEnd::Deadline) => self.stop(StopReason::Deadline),
        }
    }

    fn result_fetch_due(&self) -> bool {
        self.watching()
            .is_some_and(|w| w.result_fetch == ResultFetch::NotSent)
            && self
                .status
                .is_some_and(|s| outcome::needs_result_fetch(self.model, s))
    }

    fn send_poll(&mut self, handle: String) {
        if let Some(w) = self.watching_mut() {
            w.poll_in_flight = true;
        }
        self.polls_sent = self.polls_sent.saturating_add(1);
        self.send(Request::Get { handle });
    }

    fn send_fetch(&mut self, handle: String) {
        if let Some(w) = self.watching_mut() {
            w.result_fetch = ResultFetch::InFlight;
        }
        self.send(Request::FetchResult { handle });
    }

    fn send(&mut self, request: Request) {
        self.queue.push_back(Output::Send { request });
    }

    // --- endings --------------------------------------------------------------------------

    fn settle(&mut self, outcome: Outcome, status: Option<Status>) {
        if self.is_done() {
            return;
        }
        self.ended = Some(Ended::Settled(outcome));
        self.schedule.disarm();
        self.queue.push_back(Output::Settled {
            outcome,
            status,
            result: self.result.clone(),
            error: self.error.clone(),
        });
    }

    /// Keeps the payload values that came with a terminal status (never clears one).
    fn keep_payload(&mut self, result: Option<Json>, error: Option<Json>) {
        if result.is_some() {
            self.result = result;
        }
        if error.is_some() {
            self.error = error;
        }
    }

    fn lose(&mut self) {
        let before = self.button.state();
        self.button.handle_lost();
        self.sync_button(before);
        self.settle(Outcome::Lost, None);
    }

    fn stop(&mut self, reason: StopReason) {
        if self.is_done() {
            return;
        }
        self.ended = Some(Ended::Stopped(reason));
        self.schedule.disarm();
        // C-17: a stopped tracker sends nothing more, so its button can no longer be pressed
        // nor move; left `available`, it would offer a cancel that a press then refuses.
        let before = self.button.state();
        self.button.handle_lost();
        self.sync_button(before);
        self.queue.push_back(Output::Stopped { reason });
    }

    fn violate(&mut self, rule: Rule, detail: impl Into<String>) {
        let v = Violation::new(rule, detail);
        self.violation_count = self.violation_count.saturating_add(1);
        if self.violations.len() < MAX_RECORDED_VIOLATIONS {
            self.violations.push(v.clone());
        }
        self.queue.push_back(Output::Violation { violation: v });
    }

    fn sync_button(&mut self, before: ButtonState) {
        let now = self.button.state();
        if now != before {
            self.queue.push_back(Output::Button { state: now });
        }
    }

    fn expect_task(&self) -> Result<(), Error> {
        if self.model.is_task() {
            Ok(())
        } else {
            Err(Error::WrongModel {
                expected: self.model,
                got: Model::Task2026,
            })
        }
    }
}

/// A JSON-RPC error as the payload a settled call carries (E-12).
fn error_json(error: &RpcError) -> Json {
    Json::from(rpc_error_to_value(error))
}
