//! A wave scheduler: many jobs watched together with `jobs_wait` rounds (area B of
//! `docs/rules.md`, with the job cancel rules of area C). Sans-io, str0m style like
//! [`crate::tracker`].
//!
//! ```
//! use longcall::view::JobView;
//! use longcall::wave::{Wave, WaveConfig, WaveInput, WaveOutput};
//! use longcall::Status;
//!
//! let mut w = Wave::new(WaveConfig::default())?;
//! let job = JobView { id: "job_a".into(), status: Status::Queued, result: None, error: None };
//! w.handle_input(0, WaveInput::AddJob { job, deadline: Some(60_000) })?; // per accepted submit
//! let mut now = 0;
//! loop {
//!     match w.poll_output() {
//!         // Send the `jobs_wait`; its answer comes back as `WaitAnswered` (or `WaitFailed`).
//!         WaveOutput::Wait { call_id, call } => {
//!             let jobs = call.job_ids.iter().map(|id| JobView {
//!                 id: id.clone(), status: Status::Completed, result: None, error: None,
//!             });
//!             w.handle_input(now, WaveInput::WaitAnswered { call_id, jobs: jobs.collect() })?;
//!         }
//!         WaveOutput::Job { .. } => {}       // per job: button, status, settled, a cancel to send
//!         WaveOutput::Satisfied { .. } => {} // the wave is done (any / all)
//!         WaveOutput::WakeAt { at } => {     // sleep until `at`, then:
//!             now = at;
//!             w.handle_timeout(now);
//!         }
//!         WaveOutput::Idle => break,
//!         _ => {}                            // ignored entries, release decisions: log them
//!     }
//! }
//! assert!(w.is_satisfied());
//! # Ok::<(), longcall::Error>(())
//! ```
//!
//! The host feeds one [`WaveInput`] at a time to [`Wave::handle_input`] and calls
//! [`Wave::handle_timeout`] at the wake-up time. **Each may queue outputs; drain
//! [`Wave::poll_output`] after each until [`WaveOutput::WakeAt`] or [`WaveOutput::Idle`].**
//!
//! Rules, written once:
//!
//! 1. **One tracker per job** (B-5). Each job has a [`Tracker`] of the job model; `jobs_wait`
//!    entries are fed to it as [`Input::JobPolled`], so per-job semantics (cancel button,
//!    violations, first terminal wins, outcome) are exactly the tracker's. The trackers' own poll
//!    timers are never fired: the wave owns polling. Their `WakeAt`/`Idle`/`Send{Get}` are dropped;
//!    every other output is forwarded as [`WaveOutput::Job`].
//! 2. **Needed ids** (B-6). A job is *needed* until its tracker settled or the wave gave it up
//!    explicitly (its deadline passed → `Stopped{deadline}`; [`WaveInput::Release`] of a started
//!    job or [`Input::StopWatching`] → `Stopped{host_stopped}`). No id is dropped before that.
//! 3. **Earliest deadline first** (B-6, B-2). A round plans the needed ids sorted by deadline (no
//!    deadline last, then insertion order) with [`batch::plan_waits`]: chunks of at most
//!    [`batch::MAX_IDS_PER_WAIT`], no duplicates, nothing terminal.
//! 4. **One round in flight** (B-7). Rounds start only in [`Wave::handle_timeout`]. The next round
//!    starts once every call of the round answered or failed, and no sooner than
//!    `min_round_interval_ms` after the previous round was sent (a server that answers
//!    instantly is not hammered). A failed call (429: `Retry-After` is a floor; 5xx and
//!    transport: backoff with a [`PollSchedule`]) delays the next round; a round with no failure
//!    resets the backoff.
//! 5. **A timeout answer is a partial snapshot, not an error** (B-4, B-8). Ids an answer lacks stay
//!    as they were; an entry for an id not in the wave is reported ([`WaveOutput::Ignored`]) and
//!    never fatal; an entry the tracker refuses (a status of another model) is reported the same
//!    way.
//! 6. **Satisfaction** (B-3), emitted once as [`WaveOutput::Satisfied`]: `any` by the first job
//!    that settles (over all chunks; a job the host released does not count), or with no `by`
//!    once every job was given up before one settled; `all` once every job settled or was given
//!    up. After that no round is started.
//! 7. **Release** (B-9, C-8). [`WaveInput::Release`] says a job is no longer needed. Queued: the wave
//!    presses its cancel button (a `jobs_cancel` with the job's own idempotency key) and keeps the
//!    id in the rounds until the cancel answer and an observation decide. Started: the wave stops
//!    waiting for it, never pretending it was cancelled: it runs and bills. A 409
//!    `job_generation_already_started` to a cancel keeps the id waited (C-8: show it still
//!    running and keep waiting with `jobs_wait` slices); release it again to stop waiting.
//! 8. Snapshots (S-4, [`Snapshot`], kind `wave`) hold absolute times and restore exactly, in-flight
//!    round included.
//! 9. **The wave reads the wire** (B-11). [`Wave::handle_wait_http`] takes a `jobs_wait` answer as
//!    it arrived: a 2xx whose body is a `jobs_wait` answer is applied; any other answer is a
//!    failed call with the error envelope's code and `Retry-After`. Every failed call is
//!    reported ([`WaveOutput::CallFailed`]), so hosts only move bytes.
//! 10. **An id the server does not know is found** (B-12). A call refused `404 not_found` asked
//!     one id: that job is lost. It asked several: each is asked alone from the next round.

use alloc::collections::{BTreeMap, VecDeque};
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use crate::batch::{self, WaitCall, WaitFor};
use crate::endpoint::HttpAnswer;
use crate::error::Error;
use crate::model::Model;
use crate::poll::{PollPolicy, PollSchedule, PollStep};
use crate::snapshot::Snapshot;
use crate::status::Status;
use crate::text::Text;
use crate::time::later;
use crate::tracker::{
    Failure, Input, Output, Request, RequestKind, StopReason, Tracker, TrackerConfig,
};
use crate::view::JobView;
use crate::wire::sume;

/// How a wave waits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(default)]
pub struct WaveConfig {
    /// `all` or `any`, set in every call and deciding [`WaveOutput::Satisfied`].
    pub wait_for: WaitFor,
    /// How long the server may hold one `jobs_wait` call (≥ 1; default 50, the seed's example).
    pub timeout_seconds: u32,
    /// Return completed results in the same answer (default true, as in the seed).
    pub include_results: bool,
    /// The least time between two rounds being sent, in ms (≥ 1; default 500).
    pub min_round_interval_ms: u64,
    /// Seed for the jitter of the failure backoff and of the per-job trackers.
    pub seed: u64,
    /// The backoff after a failed call (5xx, transport, 429 on top of its `Retry-After`).
    /// `max_polls`, when set, bounds the failed rounds over the wave's life; past it the wave
    /// stops watching every needed job (`Stopped{max_polls}`).
    pub backoff: PollPolicy,
}

// Read member by member from a `Value` object (`crate::tagged`): a derived reader would also
// compile an array form nobody writes.
impl<'de> Deserialize<'de> for WaveConfig {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut f = crate::tagged::members(d, "struct WaveConfig")?;
        let fallback = WaveConfig::default();
        Ok(WaveConfig {
            wait_for: f.or("wait_for", fallback.wait_for)?,
            timeout_seconds: f.or("timeout_seconds", fallback.timeout_seconds)?,
            include_results: f.or("include_results", fallback.include_results)?,
            min_round_interval_ms: f.or("min_round_interval_ms", fallback.min_round_interval_ms)?,
            seed: f.or("seed", fallback.seed)?,
            backoff: f.or("backoff", fallback.backoff)?,
        })
    }
}

impl Default for WaveConfig {
    /// `all`, 50 s, results included, 500 ms between rounds, seed 0, the default backoff.
    fn default() -> Self {
        WaveConfig {
            wait_for: WaitFor::All,
            timeout_seconds: 50,
            include_results: true,
            min_round_interval_ms: 500,
            seed: 0,
            backoff: PollPolicy::default(),
        }
    }
}

/// Why the wave stopped waiting for a job that did not settle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum GiveUp {
    /// Its deadline passed.
    Deadline,
    /// It was released after generation started: it runs and bills.
    Released,
    /// The host stopped watching it ([`Input::StopWatching`]).
    HostStopped,
    /// The failure backoff's `max_polls` was used up.
    Backoff,
}

crate::tagged::unit_enum!(
    GiveUp,
    "enum GiveUp",
    [
        (GiveUp::Deadline, "deadline"),
        (GiveUp::Released, "released"),
        (GiveUp::HostStopped, "host_stopped"),
        (GiveUp::Backoff, "backoff"),
    ]
);

impl GiveUp {
    fn stop_reason(self) -> StopReason {
        match self {
            GiveUp::Deadline => StopReason::Deadline,
            GiveUp::Released | GiveUp::HostStopped => StopReason::HostStopped,
            GiveUp::Backoff => StopReason::MaxPolls,
        }
    }
}

/// Why an answer entry was not applied.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum IgnoredReason {
    /// The id is not in the wave.
    NotInWave,
    /// The job's tracker refused it (e.g. a status of another model).
    Refused {
        /// The stable error code.
        code: String,
        /// What was wrong.
        message: String,
    },
}

/// What a [`WaveInput::Release`] did, reported as [`WaveOutput::Released`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Released {
    /// The job was queued: its cancel was pressed and a `jobs_cancel` goes out. It stays waited
    /// until the answer and an observation decide.
    CancelRequested,
    /// A cancel of this job is already on its way; the wave waits for its answer.
    CancelPending,
    /// Generation had started: the wave stopped waiting. The job runs and bills.
    StoppedWaiting,
    /// The job had already settled or was given up: nothing to do.
    AlreadyDone,
}

crate::tagged::unit_enum!(
    Released,
    "enum Released",
    [
        (Released::CancelRequested, "cancel_requested"),
        (Released::CancelPending, "cancel_pending"),
        (Released::StoppedWaiting, "stopped_waiting"),
        (Released::AlreadyDone, "already_done"),
    ]
);

/// What happened to a wave, fed to [`Wave::handle_input`]. Every variant may queue outputs.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum WaveInput {
    /// A job whose submit was accepted (`job` as the submit answered it, normally `queued`),
    /// watched until `deadline` (absolute ms) if given. A job already terminal settles at once
    /// and is never waited on. It joins the next round; satisfaction is decided at the next
    /// [`Wave::handle_timeout`], so adding jobs one by one never satisfies a wave early.
    ///
    /// Refused (nothing changes): an id already in the wave, an empty id, a status that is not
    /// a job status, a wave already satisfied.
    AddJob {
        /// The job as the submit answered it.
        job: JobView,
        /// Stop waiting for it at this absolute time (ms).
        deadline: Option<u64>,
    },
    /// A `jobs_wait` call answered with `jobs` (its entries, in any order). An answer the server
    /// returned at `timeout_seconds` is a partial snapshot and is fed the same way: the statuses
    /// decide (B-4, B-8).
    ///
    /// Refused (nothing changes): a `call_id` that is not an unanswered call of the round in
    /// flight.
    WaitAnswered {
        /// The `call_id` of the [`WaveOutput::Wait`] this answers.
        call_id: u64,
        /// The answer's entries.
        jobs: Vec<JobView>,
    },
    /// A `jobs_wait` call failed without a usable answer. The ids of the call stay as they were;
    /// the next round waits for a backoff (429: at least `Retry-After`, B-7).
    ///
    /// Refused (nothing changes): a `call_id` that is not an unanswered call of the round in
    /// flight.
    WaitFailed {
        /// The `call_id` of the [`WaveOutput::Wait`] that failed.
        call_id: u64,
        /// How it failed.
        failure: Failure,
    },
    /// The host no longer needs job `id` (B-9, C-8), e.g. after `queue_full` or once an `any`
    /// wave is satisfied. Queued: its cancel is pressed (a `jobs_cancel` goes out as
    /// [`WaveOutput::Job`] with [`Request::Cancel`]). Started: the wave stops waiting for it
    /// (`Stopped{host_stopped}`); it runs and bills. A released job no longer satisfies an `any`
    /// wave. What the wave did is reported first, as [`WaveOutput::Released`].
    ///
    /// Refused: an id not in the wave.
    Release {
        /// The job id.
        id: String,
    },
    /// The user pressed the cancel button of job `id`. The job stays in the wave: it is waited
    /// on until terminal, whatever the answer (a 409 shows `too_late` and keeps waiting, C-8).
    ///
    /// Refused: an id not in the wave, or the tracker's typed refusal (nothing goes on the
    /// wire).
    CancelPressed {
        /// The job id.
        id: String,
    },
    /// A per-job input for job `id`'s tracker: the `jobs_cancel` answer
    /// ([`Input::CancelAnswered`] or [`Input::RequestFailed`]), a `jobs_get` answer,
    /// [`Input::StopWatching`], ...
    ///
    /// Refused: an id not in the wave, a job the wave gave up (nothing is applied), or the
    /// tracker's error (the tracker stays as it was).
    Job {
        /// The job id.
        id: String,
        /// What happened to it.
        input: Input,
    },
}

/// Something the host must do or show, drained from [`Wave::poll_output`].
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum WaveOutput {
    /// Send this `jobs_wait` now; feed its answer as [`WaveInput::WaitAnswered`] or
    /// [`WaveInput::WaitFailed`] quoting `call_id`.
    Wait {
        /// Names this call in the answer (unique over the wave's life).
        call_id: u64,
        /// The body, spelled as on the wire.
        call: WaitCall,
    },
    /// Something one job's tracker says (button, status, violation, settled, stopped, or a
    /// `jobs_cancel` to send: feed its answer as [`WaveInput::Job`]).
    Job {
        /// The job id.
        id: String,
        /// What its tracker said.
        output: Output,
    },
    /// What a [`WaveInput::Release`] of job `id` did (emitted before its consequences).
    Released {
        /// The job id.
        id: String,
        /// What the wave did.
        released: Released,
    },
    /// A `jobs_wait` call got no usable answer (B-7, B-11): its ids stay as they were and the
    /// next round waits for the backoff (a 429's `Retry-After` at least). For the host's log and
    /// its user; nothing to do.
    CallFailed {
        /// The `call_id` of the [`WaveOutput::Wait`] that failed.
        call_id: u64,
        /// How: the HTTP status with the error envelope's code, or no answer.
        failure: Failure,
        /// Why a 2xx answer could not be read as a `jobs_wait` answer; `None` otherwise.
        reason: Option<String>,
    },
    /// An answer entry the wave did not apply. Never fatal.
    Ignored {
        /// The id of the entry.
        id: String,
        /// Why.
        reason: IgnoredReason,
    },
    /// The wave is satisfied (emitted once); no round starts after it.
    Satisfied {
        /// `any`: the job that settled first. `all`: `None`.
        by: Option<String>,
    },
    /// Nothing more now: call [`Wave::handle_timeout`] at this time (or earlier on input).
    WakeAt {
        /// Absolute time in ms.
        at: u64,
    },
    /// Nothing more until the next input (a round is in flight, or the wave is done).
    Idle,
}

/// One job of the wave.
#[derive(Clone, Debug, PartialEq, Serialize)]
struct Entry {
    id: String,
    deadline: Option<u64>,
    tracker: Tracker,
    released: bool,
    given_up: Option<GiveUp>,
    /// Asked in a call of its own (B-12): a call it was in was refused `not_found`.
    #[serde(default, skip_serializing_if = "core::ops::Not::not")]
    alone: bool,
}

// Read member by member from a `Value` object (`crate::tagged`): a derived reader would also
// compile an array form nobody writes.
impl<'de> Deserialize<'de> for Entry {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut f = crate::tagged::members(d, "struct Entry")?;
        Ok(Entry {
            id: f.req("id")?,
            deadline: f.opt("deadline")?,
            tracker: f.req("tracker")?,
            released: f.req("released")?,
            given_up: f.opt("given_up")?,
            alone: f.def("alone")?,
        })
    }
}

impl Entry {
    fn needed(&self) -> bool {
        self.given_up.is_none() && !self.tracker.is_done()
    }
}

/// One call of the round in flight.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
struct PendingCall {
    call_id: u64,
    ids: Vec<String>,
    done: bool,
}

// Read member by member from a `Value` object (`crate::tagged`): a derived reader would also
// compile an array form nobody writes.
impl<'de> Deserialize<'de> for PendingCall {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut f = crate::tagged::members(d, "struct PendingCall")?;
        Ok(PendingCall {
            call_id: f.req("call_id")?,
            ids: f.req("ids")?,
            done: f.req("done")?,
        })
    }
}

/// The round in flight.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
struct Round {
    sent_at: u64,
    calls: Vec<PendingCall>,
    failed: bool,
}

// Read member by member from a `Value` object (`crate::tagged`): a derived reader would also
// compile an array form nobody writes.
impl<'de> Deserialize<'de> for Round {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut f = crate::tagged::members(d, "struct Round")?;
        Ok(Round {
            sent_at: f.req("sent_at")?,
            calls: f.req("calls")?,
            failed: f.req("failed")?,
        })
    }
}

/// Many jobs watched together. Create with [`Wave::new`], feed [`WaveInput`]s (jobs, answers,
/// the user's decisions) to [`Wave::handle_input`], fire [`Wave::handle_timeout`] at the
/// wake-up time, drain [`Wave::poll_output`] after each.
///
/// ```
/// use longcall::batch::WaitFor;
/// use longcall::view::JobView;
/// use longcall::wave::{Wave, WaveConfig, WaveInput, WaveOutput};
/// use longcall::Status;
///
/// let mut w = Wave::new(WaveConfig { wait_for: WaitFor::Any, ..WaveConfig::default() }).unwrap();
/// for id in ["job_a", "job_b"] {
///     let job = JobView { id: id.into(), status: Status::Queued, result: None, error: None };
///     w.handle_input(0, WaveInput::AddJob { job, deadline: None }).unwrap();
/// }
/// let at = loop {
///     match w.poll_output() {
///         WaveOutput::WakeAt { at } => break at,
///         _ => {}
///     }
/// };
/// w.handle_timeout(at);
/// let WaveOutput::Wait { call_id, call } = w.poll_output() else { unreachable!() };
/// assert_eq!(call.job_ids, ["job_a", "job_b"]);
/// let done = JobView { id: "job_b".into(), status: Status::Completed, result: None, error: None };
/// w.handle_input(10, WaveInput::WaitAnswered { call_id, jobs: vec![done] }).unwrap();
/// assert!(w.drain().contains(&WaveOutput::Satisfied { by: Some("job_b".into()) }));
/// ```
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Wave {
    config: WaveConfig,
    backoff: PollSchedule,
    /// Insertion order.
    jobs: Vec<Entry>,
    /// id → index in `jobs`.
    index: BTreeMap<String, usize>,
    round: Option<Round>,
    /// No round starts before this (absolute ms).
    next_round_at: u64,
    next_call_id: u64,
    rounds_sent: u64,
    /// The first job that settled while not released (what satisfies an `any` wave).
    first_settled: Option<String>,
    satisfied: bool,
    queue: VecDeque<WaveOutput>,
}

// Read member by member from a `Value` object (`crate::tagged`): a derived reader would also
// compile an array form nobody writes.
impl<'de> Deserialize<'de> for Wave {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut f = crate::tagged::members(d, "struct Wave")?;
        Ok(Wave {
            config: f.req("config")?,
            backoff: f.req("backoff")?,
            jobs: f.req("jobs")?,
            index: f.req("index")?,
            round: f.opt("round")?,
            next_round_at: f.req("next_round_at")?,
            next_call_id: f.req("next_call_id")?,
            rounds_sent: f.req("rounds_sent")?,
            first_settled: f.opt("first_settled")?,
            satisfied: f.req("satisfied")?,
            queue: f.req("queue")?,
        })
    }
}

impl Snapshot for Wave {
    const KIND: &'static str = "wave";
}

impl Wave {
    /// An empty wave. Errors: [`Error::InvalidConfig`] for `timeout_seconds` 0,
    /// `min_round_interval_ms` 0, or a bad backoff policy.
    ///
    /// Call once per wave.
    #[must_use = "a wave does nothing until it is driven"]
    pub fn new(config: WaveConfig) -> Result<Wave, Error> {
        if config.timeout_seconds == 0 {
            return Err(Error::invalid_config(
                "timeout_seconds",
                "must be at least 1 second",
            ));
        }
        if config.min_round_interval_ms == 0 {
            return Err(Error::invalid_config(
                "min_round_interval_ms",
                "must be at least 1 ms, so a server that answers instantly is not hammered",
            ));
        }
        let backoff =
            PollSchedule::new(config.backoff, config.seed).map_err(|e| e.within("backoff"))?;
        Ok(Wave {
            config,
            backoff,
            jobs: Vec::new(),
            index: BTreeMap::new(),
            round: None,
            next_round_at: 0,
            next_call_id: 0,
            rounds_sent: 0,
            first_settled: None,
            satisfied: false,
            queue: VecDeque::new(),
        })
    }

    /// The configuration.
    #[must_use]
    pub fn config(&self) -> &WaveConfig {
        &self.config
    }

    /// Something happened: a job to add, a `jobs_wait` answer or failure, the host's release,
    /// the user's cancel press, a per-job answer. See [`WaveInput`] for each and for when it is
    /// refused; a refused input changes nothing.
    ///
    /// Call on every such event, then drain [`Wave::poll_output`].
    pub fn handle_input(&mut self, now: u64, input: WaveInput) -> Result<(), Error> {
        match input {
            WaveInput::AddJob { job, deadline } => self.add_job(now, job, deadline),
            WaveInput::WaitAnswered { call_id, jobs } => self.wait_answered(now, call_id, jobs),
            WaveInput::WaitFailed { call_id, failure } => {
                self.wait_failed(now, call_id, failure, None)
            }
            WaveInput::Release { id } => self.release(now, id),
            WaveInput::CancelPressed { id } => self.job_input(now, &id, Input::CancelPressed),
            WaveInput::Job { id, input } => self.job_input(now, &id, input),
        }
    }

    /// A `jobs_wait` call answered over HTTP, as it arrived (B-11): the wave reads it. A 2xx
    /// whose body is a `jobs_wait` answer is applied as [`WaveInput::WaitAnswered`] would be;
    /// anything else is a failed call, reported as [`WaveOutput::CallFailed`] with the error
    /// envelope's code, and a 429's `Retry-After` (from `headers`, seconds or an HTTP date,
    /// unless `answer` carries it) is a floor for the next round. A call that got no answer at
    /// all is [`WaveInput::WaitFailed`] with [`Failure::Transport`].
    ///
    /// Refused (nothing changes): a `call_id` that is not an unanswered call of the round in
    /// flight.
    ///
    /// Call on every HTTP answer to a [`WaveOutput::Wait`], then drain [`Wave::poll_output`].
    ///
    /// ```
    /// use longcall::endpoint::HttpAnswer;
    /// use longcall::view::JobView;
    /// use longcall::wave::{Wave, WaveConfig, WaveInput, WaveOutput};
    /// use longcall::Status;
    ///
    /// let mut w = Wave::new(WaveConfig::default())?;
    /// let job = JobView { id: "job_a".into(), status: Status::Queued, result: None, error: None };
    /// w.handle_input(0, WaveInput::AddJob { job, deadline: None })?;
    /// w.handle_timeout(0);
    /// let call_id = w.drain().iter().find_map(|o| match o {
    ///     WaveOutput::Wait { call_id, .. } => Some(*call_id),
    ///     _ => None,
    /// }).unwrap();
    /// let body = br#"{"error":{"code":"rate_limit_exceeded","message":"slow down"}}"#;
    /// let headers = [("Retry-After".to_string(), "5".to_string())];
    /// let answer = HttpAnswer { status: 429, retry_after_ms: None, body };
    /// w.handle_wait_http(10, call_id, answer, &headers)?;
    /// assert!(matches!(w.poll_output(), WaveOutput::CallFailed { .. }));
    /// assert!(w.poll_timeout() >= Some(5_010)); // not before the server's Retry-After
    /// # Ok::<(), longcall::Error>(())
    /// ```
    pub fn handle_wait_http(
        &mut self,
        now: u64,
        call_id: u64,
        answer: HttpAnswer<'_>,
        headers: &[(String, String)],
    ) -> Result<(), Error> {
        let retry_after_ms = answer
            .retry_after_ms
            .or_else(|| crate::time::retry_after_header_ms(headers, now));
        let body = crate::wire::read_json(answer.body);
        let mut reason = None;
        if (200..300).contains(&answer.status) {
            match body
                .as_ref()
                .map_err(Clone::clone)
                .and_then(sume::read_wait)
            {
                Ok(wait) => return self.wait_answered(now, call_id, wait.jobs),
                Err(e) => reason = Some(e.to_string()),
            }
        }
        let code = body
            .ok()
            .and_then(|b| sume::read_error(answer.status, &b).ok())
            .map(|e| e.code);
        let failure = Failure::Http {
            status: answer.status,
            code,
            retry_after_ms,
        };
        self.wait_failed(now, call_id, failure, reason)
    }

    fn add_job(&mut self, now: u64, job: JobView, deadline: Option<u64>) -> Result<(), Error> {
        if self.satisfied {
            return Err(Error::invalid_input(
                "job",
                "the wave is already satisfied; start a new wave",
            ));
        }
        if self.index.contains_key(&job.id) {
            return Err(Error::invalid_input(
                "job",
                "this id is already in the wave",
            ));
        }
        // B-6: a deadline is a time. One already passed (a duration, most likely) would give the
        // job up before its first round, and the wave would report it as waited for.
        if let Some(deadline) = deadline.filter(|&d| d <= now) {
            return Err(Error::invalid_input(
                "deadline",
                &Text::new()
                    .n(deadline)
                    .s(" has passed (now is ")
                    .n(now)
                    .s("): it is an absolute time, now + how long to wait, not a duration")
                    .done(),
            ));
        }
        let seq = self.jobs.len() as u64;
        let mut tracker = Tracker::new(
            Model::Job,
            TrackerConfig {
                poll: PollPolicy::default(),
                seed: self.config.seed.wrapping_add(seq.wrapping_add(1)),
                deadline_ms: None,
            },
        )?;
        let id = job.id.clone();
        tracker.handle_input(now, Input::JobCreated { job })?;
        self.index.insert(id.clone(), self.jobs.len());
        self.jobs.push(Entry {
            id,
            deadline,
            tracker,
            released: false,
            given_up: None,
            alone: false,
        });
        // Satisfaction is decided at the next timeout, not here: more jobs may follow.
        self.pump(self.jobs.len().saturating_sub(1), None);
        Ok(())
    }

    /// The next output. Call after every [`Wave::handle_input`] and [`Wave::handle_timeout`]
    /// until it returns [`WaveOutput::WakeAt`] or [`WaveOutput::Idle`].
    #[must_use = "an output is an action for the host or the wake-up time"]
    pub fn poll_output(&mut self) -> WaveOutput {
        if let Some(out) = self.queue.pop_front() {
            return out;
        }
        match self.poll_timeout() {
            Some(at) => WaveOutput::WakeAt { at },
            None => WaveOutput::Idle,
        }
    }

    /// Drains every pending output, ending with the [`WaveOutput::WakeAt`] or
    /// [`WaveOutput::Idle`]. Call when [`Wave::poll_output`] would be called.
    #[must_use = "the outputs are actions for the host and the wake-up time"]
    pub fn drain(&mut self) -> Vec<WaveOutput> {
        let mut out = Vec::with_capacity(self.queue.len().saturating_add(1));
        loop {
            let o = self.poll_output();
            let last = matches!(o, WaveOutput::WakeAt { .. } | WaveOutput::Idle);
            out.push(o);
            if last {
                return out;
            }
        }
    }

    /// The next time [`Wave::handle_timeout`] has work: the next round (when none is in flight
    /// and the wave is not satisfied) or the earliest deadline of a needed job. Ask again after
    /// every input and timeout.
    #[must_use = "the wave must be woken at this time"]
    pub fn poll_timeout(&self) -> Option<u64> {
        // Armed while the wave is unsatisfied, even with nothing to wait on, so the timeout
        // that decides satisfaction runs (jobs added already terminal).
        let round = (self.round.is_none() && !self.satisfied && !self.jobs.is_empty())
            .then_some(self.next_round_at);
        let deadline = self
            .jobs
            .iter()
            .filter(|e| e.needed())
            .filter_map(|e| e.deadline)
            .min();
        match (round, deadline) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Time passed. Call at (or after) the time of the last [`WaveOutput::WakeAt`]; earlier
    /// calls do nothing. Gives up jobs whose deadline passed, then starts a round if one is due.
    pub fn handle_timeout(&mut self, now: u64) {
        let expired: Vec<usize> = self
            .jobs
            .iter()
            .enumerate()
            .filter(|(_, e)| e.needed() && e.deadline.is_some_and(|d| d <= now))
            .map(|(i, _)| i)
            .collect();
        for i in expired {
            self.give_up(now, i, GiveUp::Deadline);
        }
        self.check_satisfied();
        if self.round.is_none() && !self.satisfied && now >= self.next_round_at {
            self.start_round(now);
        }
    }

    fn wait_answered(&mut self, now: u64, call_id: u64, jobs: Vec<JobView>) -> Result<(), Error> {
        // An id asked alone that the server answered for is one it knows: back to shared calls.
        if let [id] = self.finish_call(call_id)?.as_slice() {
            if let Some(entry) = self.index.get(id).and_then(|&i| self.jobs.get_mut(i)) {
                entry.alone = false;
            }
        }
        for job in jobs {
            let Some(&i) = self.index.get(&job.id) else {
                self.queue.push_back(WaveOutput::Ignored {
                    id: job.id,
                    reason: IgnoredReason::NotInWave,
                });
                continue;
            };
            let Some(entry) = self.jobs.get_mut(i) else {
                continue;
            };
            if entry.given_up.is_some() {
                continue; // no longer waited for: not applied
            }
            let id = job.id.clone();
            match entry.tracker.handle_input(now, Input::JobPolled { job }) {
                Ok(()) => self.pump(i, None),
                Err(e) => self.queue.push_back(WaveOutput::Ignored {
                    id,
                    reason: IgnoredReason::Refused {
                        code: e.code().to_string(),
                        message: e.to_string(),
                    },
                }),
            }
        }
        self.check_satisfied();
        self.close_round_if_done(now);
        Ok(())
    }

    fn wait_failed(
        &mut self,
        now: u64,
        call_id: u64,
        failure: Failure,
        reason: Option<String>,
    ) -> Result<(), Error> {
        let ids = self.finish_call(call_id)?;
        // B-12: the server does not know an id of the call.
        let unknown = matches!(
            &failure,
            Failure::Http { status: 404, code: Some(code), .. } if code == "not_found"
        );
        self.queue.push_back(WaveOutput::CallFailed {
            call_id,
            failure: failure.clone(),
            reason,
        });
        if unknown {
            self.not_found(now, &ids, failure);
            self.close_round_if_done(now);
            return Ok(());
        }
        if let Failure::Http {
            status: 429,
            retry_after_ms,
            ..
        } = failure
        {
            self.backoff
                .handle_retry_after(now, retry_after_ms.unwrap_or(0));
        }
        if let Some(round) = self.round.as_mut() {
            round.failed = true;
        }
        self.close_round_if_done(now);
        Ok(())
    }

    /// A call of `ids` refused `404 not_found` (B-12): the server does not know one of them. Asked
    /// alone, that job is lost (its tracker settles it, O-6); asked with others, each is asked
    /// alone from the next round, which finds it. Not a failure to back off from.
    fn not_found(&mut self, now: u64, ids: &[String], failure: Failure) {
        if let [id] = ids {
            let Some(&i) = self.index.get(id) else { return };
            let Some(entry) = self.jobs.get_mut(i) else {
                return;
            };
            if !entry.needed() {
                return;
            }
            let lost = Input::RequestFailed {
                request: RequestKind::Get,
                failure,
            };
            match entry.tracker.handle_input(now, lost) {
                Ok(()) => self.pump(i, None),
                Err(e) => self.queue.push_back(WaveOutput::Ignored {
                    id: id.clone(),
                    reason: IgnoredReason::Refused {
                        code: e.code().to_string(),
                        message: e.to_string(),
                    },
                }),
            }
            self.check_satisfied();
            return;
        }
        for id in ids {
            if let Some(entry) = self.index.get(id).and_then(|&i| self.jobs.get_mut(i)) {
                entry.alone = true;
            }
        }
    }

    fn release(&mut self, now: u64, id: String) -> Result<(), Error> {
        let at = self.queue.len();
        let released = self.release_job(now, &id)?;
        // Reported before its consequences (the cancel request, the `Stopped`), which
        // `release_job` queued after `at`.
        self.queue.insert(at, WaveOutput::Released { id, released });
        Ok(())
    }

    fn release_job(&mut self, now: u64, id: &str) -> Result<Released, Error> {
        let i = self.lookup(id)?;
        let Some(entry) = self.jobs.get_mut(i) else {
            return Err(not_in_wave());
        };
        if !entry.needed() {
            entry.released = true;
            return Ok(Released::AlreadyDone);
        }
        entry.released = true;
        let status = entry.tracker.status();
        if entry.tracker.button() == crate::cancel::ButtonState::Requesting {
            return Ok(Released::CancelPending);
        }
        if status == Some(Status::Queued)
            && entry
                .tracker
                .handle_input(now, Input::CancelPressed)
                .is_ok()
        {
            self.pump(i, None);
            return Ok(Released::CancelRequested);
        }
        self.give_up(now, i, GiveUp::Released);
        self.check_satisfied();
        Ok(Released::StoppedWaiting)
    }

    fn job_input(&mut self, now: u64, id: &str, input: Input) -> Result<(), Error> {
        let i = self.lookup(id)?;
        let Some(entry) = self.jobs.get_mut(i) else {
            return Err(not_in_wave());
        };
        if entry.given_up.is_some() {
            // The tracker would still take it (and could settle after its `Stopped`); the wave
            // keeps its word: once given up, a job's answers are no longer applied.
            return Err(Error::invalid_input(
                "id",
                "the wave stopped waiting for this job; its answers are no longer applied",
            ));
        }
        let stop = matches!(input, Input::StopWatching);
        entry.tracker.handle_input(now, input)?;
        if stop && entry.given_up.is_none() && entry.tracker.outcome().is_none() {
            entry.given_up = Some(GiveUp::HostStopped);
        }
        self.pump(i, None);
        self.check_satisfied();
        Ok(())
    }

    /// Whether [`WaveOutput::Satisfied`] was emitted.
    #[must_use]
    pub fn is_satisfied(&self) -> bool {
        self.satisfied
    }

    /// Whether a round is in flight.
    #[must_use]
    pub fn round_in_flight(&self) -> bool {
        self.round.is_some()
    }

    /// How many rounds were sent.
    #[must_use]
    pub fn rounds_sent(&self) -> u64 {
        self.rounds_sent
    }

    /// The ids still needed (not settled, not given up), in insertion order.
    pub fn needed_ids(&self) -> impl Iterator<Item = &str> {
        self.jobs
            .iter()
            .filter(|e| e.needed())
            .map(|e| e.id.as_str())
    }

    /// Every id of the wave, in insertion order.
    pub fn ids(&self) -> impl Iterator<Item = &str> {
        self.jobs.iter().map(|e| e.id.as_str())
    }

    /// The tracker of job `id`, for its run record.
    #[must_use]
    pub fn tracker(&self, id: &str) -> Option<&Tracker> {
        self.index
            .get(id)
            .and_then(|&i| self.jobs.get(i))
            .map(|e| &e.tracker)
    }

    /// Why the wave stopped waiting for job `id`, if it did.
    #[must_use]
    pub fn given_up(&self, id: &str) -> Option<GiveUp> {
        self.index
            .get(id)
            .and_then(|&i| self.jobs.get(i))
            .and_then(|e| e.given_up)
    }

    // --- internals ------------------------------------------------------------------------

    fn lookup(&self, id: &str) -> Result<usize, Error> {
        self.index.get(id).copied().ok_or_else(not_in_wave)
    }

    fn start_round(&mut self, now: u64) {
        let mut order: Vec<(u64, u64, &str)> = self
            .jobs
            .iter()
            .enumerate()
            .filter(|(_, e)| e.needed())
            .map(|(i, e)| (e.deadline.unwrap_or(u64::MAX), i as u64, e.id.as_str()))
            .collect();
        if order.is_empty() {
            return;
        }
        order.sort_unstable();
        let is_alone = |id: &str| {
            self.index
                .get(id)
                .and_then(|&i| self.jobs.get(i))
                .is_some_and(|e| e.alone)
        };
        let (alone, shared): (Vec<&str>, Vec<&str>) = order
            .iter()
            .map(|&(_, _, id)| id)
            .partition(|id| is_alone(id));
        // The ids asked together, then each id asked alone (B-12) in a call of its own.
        let groups = core::iter::once(shared)
            .filter(|ids| !ids.is_empty())
            .chain(alone.into_iter().map(|id| alloc::vec![id]));
        let mut planned = Vec::new();
        for ids in groups {
            let plan = batch::plan_waits(
                ids,
                |_| false,
                self.config.wait_for,
                Some(self.config.timeout_seconds),
                self.config.include_results,
            );
            // Ids are non-empty (the tracker refuses an empty one in `add_job`), so planning
            // cannot fail; if it ever did, no round goes out and the next timeout tries again.
            let Ok(plan) = plan else { return };
            planned.extend(plan.calls);
        }
        let mut calls = Vec::with_capacity(planned.len());
        for call in planned {
            let call_id = self.next_call_id;
            self.next_call_id = self.next_call_id.saturating_add(1);
            calls.push(PendingCall {
                call_id,
                ids: call.job_ids.clone(),
                done: false,
            });
            self.queue.push_back(WaveOutput::Wait { call_id, call });
        }
        self.rounds_sent = self.rounds_sent.saturating_add(1);
        self.next_round_at = later(now, self.config.min_round_interval_ms);
        self.round = Some(Round {
            sent_at: now,
            calls,
            failed: false,
        });
    }

    /// Marks call `call_id` answered; returns the ids it asked.
    fn finish_call(&mut self, call_id: u64) -> Result<Vec<String>, Error> {
        let call = self
            .round
            .as_mut()
            .and_then(|r| r.calls.iter_mut().find(|c| c.call_id == call_id && !c.done));
        match call {
            Some(c) => {
                c.done = true;
                Ok(c.ids.clone())
            }
            None => Err(Error::invalid_input(
                "call_id",
                "not an unanswered call of the round in flight",
            )),
        }
    }

    fn close_round_if_done(&mut self, now: u64) {
        let Some(round) = &self.round else { return };
        if !round.calls.iter().all(|c| c.done) {
            return;
        }
        let failed = round.failed;
        let earliest = later(round.sent_at, self.config.min_round_interval_ms);
        self.round = None;
        if failed {
            match self.backoff.next(now) {
                PollStep::At(at) => self.next_round_at = earliest.max(at),
                PollStep::Stop(_) => {
                    let needed: Vec<usize> = (0..self.jobs.len())
                        .filter(|&i| self.jobs.get(i).is_some_and(Entry::needed))
                        .collect();
                    for i in needed {
                        self.give_up(now, i, GiveUp::Backoff);
                    }
                    self.check_satisfied();
                }
            }
        } else {
            self.backoff.handle_progress();
            self.next_round_at = earliest;
        }
    }

    /// Stops waiting for job `i`: its tracker stops watching; the forwarded `Stopped` carries
    /// the wave's reason.
    fn give_up(&mut self, now: u64, i: usize, why: GiveUp) {
        let Some(entry) = self.jobs.get_mut(i) else {
            return;
        };
        if !entry.needed() {
            return;
        }
        entry.given_up = Some(why);
        if entry.tracker.handle_input(now, Input::StopWatching).is_ok() {
            self.pump(i, Some(why.stop_reason()));
        }
    }

    /// Forwards what job `i`'s tracker queued (rule 1).
    fn pump(&mut self, i: usize, stop_as: Option<StopReason>) {
        let Some(entry) = self.jobs.get_mut(i) else {
            return;
        };
        loop {
            let out = entry.tracker.poll_output();
            if matches!(out, Output::Settled { .. })
                && !entry.released
                && self.first_settled.is_none()
            {
                self.first_settled = Some(entry.id.clone());
            }
            let out = match out {
                Output::WakeAt { .. } | Output::Idle => return,
                Output::Send {
                    request: Request::Get { .. },
                } => continue,
                Output::Stopped { reason } => Output::Stopped {
                    reason: stop_as.unwrap_or(reason),
                },
                other => other,
            };
            self.queue.push_back(WaveOutput::Job {
                id: entry.id.clone(),
                output: out,
            });
        }
    }

    fn check_satisfied(&mut self) {
        if self.satisfied || self.jobs.is_empty() {
            return;
        }
        let by = match self.config.wait_for {
            WaitFor::Any => match &self.first_settled {
                Some(id) => Some(id.clone()),
                // Every job given up before one settled: nothing can satisfy the wave any more,
                // and an unsatisfied wave would keep arming rounds with no id to send.
                None if !self.jobs.iter().any(Entry::needed) => None,
                None => return,
            },
            WaitFor::All => {
                if self.jobs.iter().any(Entry::needed) {
                    return;
                }
                None
            }
        };
        self.satisfied = true;
        self.queue.push_back(WaveOutput::Satisfied { by });
    }
}

fn not_in_wave() -> Error {
    Error::invalid_input("id", "this id is not in the wave")
}

// Read through `crate::tagged`, not serde's derived internally tagged support: the same JSON,
// far less WebAssembly.
impl<'de> Deserialize<'de> for IgnoredReason {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        const VARIANTS: &[&str] = &["not_in_wave", "refused"];
        let (tag, mut f) = crate::tagged::read(d, "kind", "internally tagged enum IgnoredReason")?;
        Ok(match tag.as_str() {
            "not_in_wave" => IgnoredReason::NotInWave,
            "refused" => IgnoredReason::Refused {
                code: f.req("code")?,
                message: f.req("message")?,
            },
            other => return Err(crate::tagged::unknown(other, VARIANTS)),
        })
    }
}

impl<'de> Deserialize<'de> for WaveOutput {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        const VARIANTS: &[&str] = &[
            "wait",
            "job",
            "released",
            "call_failed",
            "ignored",
            "satisfied",
            "wake_at",
            "idle",
        ];
        let (tag, mut f) = crate::tagged::read(d, "type", "internally tagged enum WaveOutput")?;
        Ok(match tag.as_str() {
            "wait" => WaveOutput::Wait {
                call_id: f.req("call_id")?,
                call: f.req("call")?,
            },
            "job" => WaveOutput::Job {
                id: f.req("id")?,
                output: f.req("output")?,
            },
            "released" => WaveOutput::Released {
                id: f.req("id")?,
                released: f.req("released")?,
            },
            "call_failed" => WaveOutput::CallFailed {
                call_id: f.req("call_id")?,
                failure: f.req("failure")?,
                reason: f.opt("reason")?,
            },
            "ignored" => WaveOutput::Ignored {
                id: f.req("id")?,
                reason: f.req("reason")?,
            },
            "satisfied" => WaveOutput::Satisfied { by: f.opt("by")? },
            "wake_at" => WaveOutput::WakeAt { at: f.req("at")? },
            "idle" => WaveOutput::Idle,
            other => return Err(crate::tagged::unknown(other, VARIANTS)),
        })
    }
}
