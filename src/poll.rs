//! Poll scheduling: when to look at a watched call next (area P of `docs/rules.md`).
//!
//! Rules, written once:
//!
//! 1. **Backoff** (P-1). Without hints the client follows its own schedule: the `n`-th delay is
//!    `min(cap, initial × multiplier^n)` with the multiplier an integer percent (no float `pow`
//!    in `no_std`). The default ([`PollPolicy::default`]) is our choice: 1000 ms, ×2, 30 s cap,
//!    full jitter.
//! 2. **Jitter** (P-2, [`Jitter`]) follows the AWS formulas (none, full, equal, decorrelated) and
//!    is drawn from a host seed ([`Rng`], SplitMix64), so every schedule is reproducible.
//! 3. **Floors, never ceilings** (P-3, P-4). The floor is `max(min_interval_ms, server interval)`,
//!    where the server interval is the latest `pollIntervalMs` (2026) / `pollInterval` (2025). A
//!    delay is `max(jittered backoff, floor)`: jitter only ever moves a delay *upward* from a
//!    floor. A 429 `Retry-After` sets an absolute `not_before`; no poll is scheduled or sent before it
//!    (one already armed moves to it).
//! 4. **Progress resets the backoff** (P-5). When the observed status changes
//!    ([`PollSchedule::handle_progress`]) the backoff restarts at its initial delay (the call is
//!    moving, so look again soon). The floors and the poll budget are not reset.
//! 5. **Bounded** (P-6). `max_polls` and an absolute watch deadline end *watching*, never the job:
//!    [`PollStep::Stop`] says why. No poll is ever scheduled after the watch deadline. (When
//!    the next poll would fall after it, the tracker keeps watching, with nothing armed, until
//!    the deadline itself: a notification may still settle the call.)
//! 6. **TTL** (P-7; the time the host received the handle plus `ttlMs`, the latest stated; `None`
//!    means unlimited). The anchor is the host's own clock, not the server's `createdAt`: clock
//!    skew between the two cannot then expire a handle early, and a late look only costs one
//!    `-32602` (lost), while an early stop would abandon a live task. Once `now`
//!    reaches it the schedule stops with [`ScheduleEnd::TtlElapsed`]. A poll that would land past
//!    the TTL is pulled in to one last look at `max(ttl, now + floor, not_before)` (the floors
//!    still win), so the client sees whatever the server reports at expiry.
//! 7. **Host numbers saturate** (P-8). Every sum and product saturates; `u64::MAX` is a valid input.
//! 8. **A stated interval is followed** (P-13; [`PollPolicy::follow_server_interval`], on by
//!    default). When the latest answer stated an interval and the last poll did not fail, the
//!    delay is exactly the floor: the server said how often it wants to be asked, and backing
//!    off above it only notices completion late. The backoff of rule 1 applies without a hint,
//!    after a failed poll ([`PollSchedule::handle_poll_failed`], until the next answer), and a
//!    `Retry-After` still wins through `not_before`.
//! 9. **One timer** (P-6, P-3, P-12). A host that lets the schedule keep its timer arms the next
//!    poll with [`PollSchedule::arm`] and asks [`PollSchedule::handle_timeout`] when time passes:
//!    the armed poll and the watch deadline are decided here and nowhere else. A floor raised
//!    after the poll was armed moves it to *end of the last poll + floor*, where a failed poll
//!    ends a poll too ([`PollSchedule::handle_poll_ended`]).
//! 10. **A look asked for** (P-15). A host whose person comes to look (a page reloaded, a job
//!     resumed from its record, a view back on screen) may ask for the present
//!     ([`PollSchedule::handle_refresh`]): the armed poll moves to the earliest time the floors
//!     allow, counted from the end of the last poll (from now when none is known), and never
//!     before a `Retry-After`. It only ever moves earlier, and the backoff goes on where it was:
//!     asking again and again polls no faster than the floor.
//! 11. **Watching again keeps the floors** (P-16). A new watch of a call whose watching stopped
//!     starts no sooner than [`PollSchedule::floors_until`] of the one before it: the end of
//!     its last poll plus the floor, and its `Retry-After`.
//!
//! The per-step path ([`PollSchedule::next`]) allocates nothing.
//!
//! ```
//! use longcall::poll::{PollPolicy, PollSchedule, PollStep};
//! let mut s = PollSchedule::new(PollPolicy::default(), 42).unwrap();
//! s.handle_server_interval(Some(5_000)); // pollIntervalMs from the CreateTaskResult
//! match s.next(1_000) {
//!     PollStep::At(at) => assert!(at >= 6_000), // never before the server's floor
//!     PollStep::Stop(reason) => unreachable!("{reason:?}"),
//! }
//! ```

use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use crate::error::Error;
use crate::snapshot::Snapshot;
use crate::time::later;

/// The largest `count` [`plan`] accepts.
pub const MAX_PLAN_COUNT: u32 = 10_000;

/// A seedable SplitMix64 generator: the only source of jitter. The host supplies the seed.
///
/// ```
/// use longcall::poll::Rng;
/// let mut a = Rng::new(7);
/// let mut b = Rng::new(7);
/// assert_eq!(a.next_u64(), b.next_u64());
/// let x = a.between(10, 20);
/// assert!((10..=20).contains(&x));
/// assert_eq!(a.between(5, 5), 5);
/// assert_eq!(a.between(9, 3), 9); // lo >= hi: lo, no panic
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rng {
    state: u64,
}

// The state runs over all of u64, so a snapshot writes it as decimal text (S-7): a JavaScript host
// that parses a snapshot (`JSON.parse`) would round a number past 2^53 and restore another
// schedule. Read as text or as a number (what earlier snapshots wrote).
impl Serialize for Rng {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("Rng", 1)?;
        st.serialize_field("state", &crate::text::Text::new().n(self.state).done())?;
        st.end()
    }
}

// Read member by member from a `Value` object (`crate::tagged`): a derived reader would also
// compile an array form nobody writes.
impl<'de> Deserialize<'de> for Rng {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error as _;
        let mut f = crate::tagged::members(d, "struct Rng")?;
        let state = match f.req::<serde_json::Value, D::Error>("state")? {
            serde_json::Value::Number(n) => n.as_u64(),
            serde_json::Value::String(text) => text.parse().ok(),
            _ => None,
        };
        Ok(Rng {
            state: state.ok_or_else(|| {
                D::Error::custom("state: expected an integer from 0 to 2^64-1, as text")
            })?,
        })
    }
}

impl Rng {
    /// A generator seeded with `seed` (any value, including 0).
    #[must_use]
    pub const fn new(seed: u64) -> Rng {
        Rng { state: seed }
    }

    /// The next 64 random bits.
    #[must_use]
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `lo..=hi` (multiply-shift, no modulo bias worth measuring). When `lo >= hi`
    /// it returns `lo` and still advances the generator, so the draw count never depends on
    /// the bounds.
    #[must_use]
    pub fn between(&mut self, lo: u64, hi: u64) -> u64 {
        let r = self.next_u64();
        if lo >= hi {
            return lo;
        }
        let span = u128::from(hi - lo) + 1;
        let offset = (u128::from(r).saturating_mul(span) >> 64) as u64;
        lo.saturating_add(offset)
    }
}

/// How a backoff delay is randomized (the AWS "Exponential Backoff And Jitter" formulas).
///
/// With `t = min(cap, initial × multiplier^n)`:
/// `none` sleeps `t`; `full` sleeps `rand(0, t)`; `equal` sleeps `t/2 + rand(0, t/2)`;
/// `decorrelated` sleeps `min(cap, rand(initial, previous × 3))` (it ignores the multiplier).
/// Whatever the draw, the floors of rule 3 are applied afterwards.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Jitter {
    /// `t`.
    None,
    /// `rand(0, t)`: the fewest calls in AWS's simulation; our default.
    #[default]
    Full,
    /// `t/2 + rand(0, t/2)` (rounded so the result lies in `ceil(t/2)..=t`).
    Equal,
    /// `min(cap, rand(initial, previous × 3))`, the previous sleep starting at `initial`.
    Decorrelated,
}

crate::tagged::unit_enum!(
    Jitter,
    "enum Jitter",
    [
        (Jitter::None, "none"),
        (Jitter::Full, "full"),
        (Jitter::Equal, "equal"),
        (Jitter::Decorrelated, "decorrelated"),
    ]
);

/// The client's own schedule, used when the server sends no hint (and as the backoff above a
/// hint). Missing fields take their defaults when deserialized.
///
/// ```
/// use longcall::poll::PollPolicy;
/// let p: PollPolicy = serde_json::from_str(r#"{"cap_ms":60000}"#).unwrap();
/// assert_eq!(p.initial_ms, 1000);
/// assert_eq!(p.cap_ms, 60000);
/// p.validate().unwrap();
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(default)]
pub struct PollPolicy {
    /// The first backoff delay, in ms (≥ 1).
    pub initial_ms: u64,
    /// The growth per poll as an integer percent (≥ 100; 200 doubles).
    pub multiplier_percent: u32,
    /// The largest backoff delay, in ms (≥ `initial_ms`). Floors may exceed it.
    pub cap_ms: u64,
    /// How the delay is randomized.
    pub jitter: Jitter,
    /// The global minimum between two polls, in ms (≥ 1), so a hint-less server is not hammered.
    pub min_interval_ms: u64,
    /// The most polls to schedule; `None` is unlimited (bound watching with a deadline then).
    pub max_polls: Option<u32>,
    /// Poll at the server's stated interval rather than backing off above it (rule 8 above,
    /// P-13). On by default: with a stated interval the polls come at it (jitter adds at most a
    /// quarter), however long the task runs; the backoff above applies only without one, after
    /// failures and above a `Retry-After`. Off, the interval is a floor under the backoff.
    pub follow_server_interval: bool,
}

// Read member by member from a `Value` object (`crate::tagged`): a derived reader would also
// compile an array form nobody writes.
impl<'de> Deserialize<'de> for PollPolicy {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut f = crate::tagged::members(d, "struct PollPolicy")?;
        let fallback = PollPolicy::default();
        Ok(PollPolicy {
            initial_ms: f.or("initial_ms", fallback.initial_ms)?,
            multiplier_percent: f.or("multiplier_percent", fallback.multiplier_percent)?,
            cap_ms: f.or("cap_ms", fallback.cap_ms)?,
            jitter: f.or("jitter", fallback.jitter)?,
            min_interval_ms: f.or("min_interval_ms", fallback.min_interval_ms)?,
            max_polls: f.or("max_polls", fallback.max_polls)?,
            follow_server_interval: f
                .or("follow_server_interval", fallback.follow_server_interval)?,
        })
    }
}

impl Default for PollPolicy {
    /// 1000 ms, ×2, 30 s cap, full jitter, 500 ms minimum, no poll limit.
    fn default() -> Self {
        PollPolicy {
            initial_ms: 1000,
            multiplier_percent: 200,
            cap_ms: 30_000,
            jitter: Jitter::Full,
            min_interval_ms: 500,
            max_polls: None,
            follow_server_interval: true,
        }
    }
}

impl PollPolicy {
    /// Checks the ranges; an out-of-range field is [`Error::InvalidConfig`] naming it.
    ///
    /// ```
    /// use longcall::poll::PollPolicy;
    /// let bad = PollPolicy { multiplier_percent: 50, ..PollPolicy::default() };
    /// assert_eq!(bad.validate().unwrap_err().code(), "invalid_config");
    /// ```
    pub fn validate(&self) -> Result<(), Error> {
        if self.initial_ms == 0 {
            return Err(Error::invalid_config("initial_ms", "must be at least 1 ms"));
        }
        if self.multiplier_percent < 100 {
            return Err(Error::invalid_config(
                "multiplier_percent",
                "must be at least 100 (a backoff that shrinks is not a backoff)",
            ));
        }
        if self.cap_ms < self.initial_ms {
            return Err(Error::invalid_config(
                "cap_ms",
                "must not be below initial_ms",
            ));
        }
        if self.min_interval_ms == 0 {
            return Err(Error::invalid_config(
                "min_interval_ms",
                "must be at least 1 ms, so a server that sends no hint is not hammered",
            ));
        }
        if self.min_interval_ms > self.cap_ms {
            return Err(Error::invalid_config(
                "min_interval_ms",
                "must not exceed cap_ms",
            ));
        }
        if self.max_polls == Some(0) {
            return Err(Error::invalid_config(
                "max_polls",
                "must be at least 1; leave it out for no limit",
            ));
        }
        Ok(())
    }

    /// How long to wait before sending a creating request again after its `tries`-th try got no
    /// answer or a refusal to retry (R-5, E-11): `initial_ms`, times the multiplier for every
    /// try after the first, capped at `cap_ms`, never below `min_interval_ms`. One schedule for
    /// the endpoint's submit and the watch list's re-sent create, without jitter (the key makes
    /// a re-send harmless; the wait only spares the server).
    ///
    /// ```
    /// use longcall::poll::PollPolicy;
    /// let p = PollPolicy::default();
    /// assert_eq!([1, 2, 3].map(|t| p.retry_delay_ms(t)), [1_000, 2_000, 4_000]);
    /// ```
    #[must_use]
    pub fn retry_delay_ms(&self, tries: u32) -> u64 {
        let mut delay = self.initial_ms;
        for _ in 1..tries {
            delay = grow(delay, self.multiplier_percent, self.cap_ms);
        }
        delay.max(self.min_interval_ms)
    }
}

/// What [`PollSchedule::next`] decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PollStep {
    /// Poll at this absolute time (ms, the host's epoch).
    At(u64),
    /// Stop watching (the job itself goes on).
    Stop(ScheduleEnd),
}

/// What [`PollSchedule::handle_timeout`] decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Due {
    /// Nothing yet: no poll is armed, or it is not due.
    Nothing,
    /// The armed poll is due: send it now.
    Poll,
    /// The watch deadline passed: stop watching (never the call).
    DeadlinePassed,
}

/// Why the poll schedule has no next poll. None of these cancels or resubmits anything.
///
/// Not the tracker's [`crate::tracker::StopReason`] (why watching stopped): the tracker turns
/// `MaxPolls` and `Deadline` into a stop, but an elapsed TTL into a lost call (O-6, P-7), and
/// it stops for reasons no schedule knows (the host, an unanswered create, an answer too large).
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ScheduleEnd {
    /// The policy's `max_polls` were all scheduled.
    MaxPolls,
    /// The next poll would fall after the host's watch deadline.
    Deadline,
    /// The task's TTL (received + `ttlMs`, rule 6) has passed without a terminal status: the
    /// handle may no longer resolve.
    TtlElapsed,
}

crate::tagged::unit_enum!(
    ScheduleEnd,
    "enum ScheduleEnd",
    [
        (ScheduleEnd::MaxPolls, "max_polls"),
        (ScheduleEnd::Deadline, "deadline"),
        (ScheduleEnd::TtlElapsed, "ttl_elapsed"),
    ]
);

/// The poll schedule of one watched call. Time is absolute ms from the host; jitter comes from
/// the seed given to [`PollSchedule::new`]. Snapshots ([`Snapshot`]) hold every field,
/// deadlines included, and restore to a schedule that continues identically.
///
/// The host loop: after the submit answer (or on resume), and after every **non-terminal**
/// answer, feed what the answer said (`handle_*`), then call [`PollSchedule::next`] and sleep
/// until the time it returns. Stop on a terminal status, or when `next` says
/// [`PollStep::Stop`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PollSchedule {
    policy: PollPolicy,
    rng: Rng,
    /// Polls scheduled since the last progress (the backoff exponent).
    attempt: u32,
    /// The un-jittered backoff delay of the current attempt, `min(cap, initial × m^attempt)`.
    backoff_ms: u64,
    /// The previous sleep (decorrelated jitter grows from it).
    previous_ms: u64,
    /// Polls scheduled in total (never reset).
    polls: u32,
    deadline: Option<u64>,
    ttl_deadline: Option<u64>,
    server_interval_ms: Option<u64>,
    not_before: Option<u64>,
    /// The last poll failed (rule 8: back off until an answer arrives).
    #[serde(default)]
    failing: bool,
    /// The poll armed by [`PollSchedule::arm`], if one waits (rule 9).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    armed: Option<u64>,
    /// When the last poll ended, answered or failed: the floors count from it (rule 9).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    poll_ended_at: Option<u64>,
}

// Read member by member from a `Value` object (`crate::tagged`): a derived reader would also
// compile an array form nobody writes.
impl<'de> Deserialize<'de> for PollSchedule {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut f = crate::tagged::members(d, "struct PollSchedule")?;
        // A saved policy obeys the limits a new one does: `cap_ms: 0` is no schedule.
        let policy: PollPolicy = f.req("policy")?;
        policy
            .validate()
            .map_err(|e| serde::de::Error::custom(e.within("policy").message()))?;
        Ok(PollSchedule {
            policy,
            rng: f.req("rng")?,
            attempt: f.req("attempt")?,
            backoff_ms: f.req("backoff_ms")?,
            previous_ms: f.req("previous_ms")?,
            polls: f.req("polls")?,
            deadline: f.opt("deadline")?,
            ttl_deadline: f.opt("ttl_deadline")?,
            server_interval_ms: f.opt("server_interval_ms")?,
            not_before: f.opt("not_before")?,
            failing: f.def("failing")?,
            armed: f.opt("armed")?,
            poll_ended_at: f.opt("poll_ended_at")?,
        })
    }
}

impl Snapshot for PollSchedule {
    const KIND: &'static str = "poll_schedule";
}

impl PollSchedule {
    /// A fresh schedule. Errors: [`Error::InvalidConfig`] from [`PollPolicy::validate`].
    ///
    /// Call once per watched call, when its handle arrives; persist it with the handle.
    pub fn new(policy: PollPolicy, seed: u64) -> Result<PollSchedule, Error> {
        policy.validate()?;
        Ok(PollSchedule {
            policy,
            rng: Rng::new(seed),
            attempt: 0,
            backoff_ms: policy.initial_ms,
            previous_ms: policy.initial_ms,
            polls: 0,
            deadline: None,
            ttl_deadline: None,
            server_interval_ms: None,
            not_before: None,
            failing: false,
            armed: None,
            poll_ended_at: None,
        })
    }

    /// Sets (or with `None` clears) the absolute local watch deadline. No poll is scheduled
    /// after it; reaching it ends watching, never the job.
    ///
    /// Call when the host decides how long it is willing to watch (e.g. the CLI's `--timeout`
    /// as `start + timeout`), before the first [`PollSchedule::next`]; call again to move it.
    pub fn set_deadline(&mut self, deadline: Option<u64>) {
        self.deadline = deadline;
    }

    /// Sets the absolute TTL deadline, when the host received the handle plus `ttlMs` (rule 6,
    /// saturating), or `None` for an unlimited TTL (`ttlMs: null`).
    ///
    /// Call on every answer that carries `ttlMs` (the server may change it).
    pub fn set_ttl_deadline(&mut self, ttl_deadline: Option<u64>) {
        self.ttl_deadline = ttl_deadline;
    }

    /// Records the latest server poll interval (`pollIntervalMs` in 2026, `pollInterval` in
    /// 2025), a **floor**, never a ceiling.
    ///
    /// Call on every answer, with the value it carries. We keep only what the latest answer
    /// said: `None` (the field was absent) clears the hint and the client's own floor
    /// (`min_interval_ms`) applies alone.
    pub fn handle_server_interval(&mut self, interval_ms: Option<u64>) {
        self.server_interval_ms = interval_ms;
        // A raised floor also holds the poll already armed (rule 9).
        if let (Some(at), Some(ended)) = (self.armed, self.poll_ended_at) {
            let floor = later(ended, self.floor_ms());
            if at < floor {
                self.armed = Some(floor);
            }
        }
    }

    /// Records a 429 (or 503) `Retry-After` of `delay_ms` received at `now`: no poll before
    /// `now + delay_ms`. An earlier, later-reaching `Retry-After` is kept (the later of the two
    /// wins).
    ///
    /// Call when a poll is answered with `Retry-After` (convert seconds or an HTTP-date to ms
    /// on the host), then call [`PollSchedule::next`].
    pub fn handle_retry_after(&mut self, now: u64, delay_ms: u64) {
        let until = later(now, delay_ms);
        let not_before = self.not_before.map_or(until, |nb| nb.max(until));
        self.not_before = Some(not_before);
        // P-4 holds the poll already armed too (a 429 on a cancel while a poll waits); a
        // deadline before it still ends watching on time (`next_wake`).
        if self.armed.is_some_and(|at| at < not_before) {
            self.armed = Some(not_before);
        }
    }

    /// A poll failed (no answer, an error answer): until the next answer the backoff of rule 1
    /// applies even when the server stated an interval (rule 8).
    ///
    /// Call when a poll fails, before [`PollSchedule::next`].
    pub fn handle_poll_failed(&mut self) {
        self.failing = true;
    }

    /// A poll was answered: a stated interval is followed again (rule 8).
    ///
    /// Call on every poll answer, before [`PollSchedule::next`].
    pub fn handle_poll_answered(&mut self) {
        self.failing = false;
    }

    /// A poll (or the creating request, the first answer) ended at `now`, answered or failed:
    /// the floors of rule 3 count from it, for the poll already armed too (rule 9).
    ///
    /// Call with every poll answer or failure, after [`PollSchedule::handle_poll_answered`] or
    /// [`PollSchedule::handle_poll_failed`].
    pub fn handle_poll_ended(&mut self, now: u64) {
        self.poll_ended_at = Some(now);
    }

    /// Decides the next poll like [`PollSchedule::next`] and holds it as the armed poll:
    /// [`PollSchedule::handle_timeout`] says when it is due, [`PollSchedule::next_wake`] when to
    /// wake. A stop disarms nothing and is returned (rule 9), except one for a deadline still
    /// ahead: no poll fits before it, yet watching lasts until it (P-6), so nothing is armed and
    /// `next_wake` is the deadline, where `handle_timeout` says it passed.
    ///
    /// Call where [`PollSchedule::next`] would be called, by a host that lets the schedule keep
    /// its timer (the tracker does).
    #[must_use = "a stop ends watching"]
    pub fn arm(&mut self, now: u64) -> Option<ScheduleEnd> {
        match self.next(now) {
            PollStep::At(at) => {
                self.armed = Some(at);
                None
            }
            PollStep::Stop(ScheduleEnd::Deadline) if self.deadline.is_some_and(|d| now < d) => {
                self.armed = None;
                None
            }
            PollStep::Stop(reason) => Some(reason),
        }
    }

    /// Someone wants the present (rule 10): the armed poll moves to the earliest time the floors
    /// allow, `max(now, end of the last poll + floor, not_before)`, or `max(now + floor,
    /// not_before)` when no poll has ended yet. A poll armed sooner stays; with none armed (one is
    /// out, or watching ended) nothing changes.
    ///
    /// Call when a person comes to look at the call; then [`PollSchedule::next_wake`] again.
    pub fn handle_refresh(&mut self, now: u64) {
        let Some(at) = self.armed else { return };
        let floor = self.floor_ms();
        let earliest = self
            .poll_ended_at
            .map_or(later(now, floor), |ended| now.max(later(ended, floor)))
            .max(self.not_before.unwrap_or(0));
        self.armed = Some(at.min(earliest));
    }

    /// The earliest time the floors allow the next poll, known without `now` (P-16): the end of
    /// the last poll plus the floor in force, and never before a `Retry-After`. `None` when
    /// neither is known (no poll ended, no `Retry-After`).
    ///
    /// Call when a new watch of the same call follows this one, to start it no sooner.
    #[must_use]
    pub fn floors_until(&self) -> Option<u64> {
        let after_poll = self
            .poll_ended_at
            .map(|ended| later(ended, self.floor_ms()));
        match (after_poll, self.not_before) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        }
    }

    /// Drops the armed poll (an answer is awaited another way, or watching ended).
    ///
    /// Call when no poll may go out until the next [`PollSchedule::arm`].
    pub fn disarm(&mut self) {
        self.armed = None;
    }

    /// Arms a poll at `at` without deciding it (a restored snapshot's).
    pub(crate) fn rearm(&mut self, at: u64) {
        self.armed = Some(at);
    }

    /// Forgets when the last poll ended (a snapshot form that keeps it elsewhere).
    pub(crate) fn forget_poll_end(&mut self) {
        self.poll_ended_at = None;
    }

    /// When the last poll ended, answered or failed, if one did.
    #[must_use]
    pub fn poll_ended_at(&self) -> Option<u64> {
        self.poll_ended_at
    }

    /// The armed poll, if one waits.
    #[must_use]
    pub fn armed(&self) -> Option<u64> {
        self.armed
    }

    /// When the host must call [`PollSchedule::handle_timeout`]: the armed poll or the watch
    /// deadline, whichever comes first. The deadline is a timer of its own, so it fires even
    /// while a request is open (a 2025 `tasks/result` may block for as long as the task runs).
    #[must_use]
    pub fn next_wake(&self) -> Option<u64> {
        match (self.armed, self.deadline) {
            (Some(poll), Some(deadline)) => Some(poll.min(deadline)),
            (poll, deadline) => poll.or(deadline),
        }
    }

    /// Time passed (rule 9): whether the armed poll is due, or watching ends at the deadline.
    /// A due poll is disarmed (it is the caller's to send now).
    ///
    /// A poll due exactly at the deadline still goes out at the deadline; after it (the host may
    /// wake late), nothing does. Call at [`PollSchedule::next_wake`] or later; earlier calls say
    /// [`Due::Nothing`].
    #[must_use = "a due poll must be sent and a passed deadline ends watching"]
    pub fn handle_timeout(&mut self, now: u64) -> Due {
        if let Some(deadline) = self.deadline {
            let due_at_deadline = self.armed.is_some_and(|p| p <= deadline);
            if now > deadline || (now == deadline && !due_at_deadline) {
                return Due::DeadlinePassed;
            }
        }
        match self.armed {
            Some(at) if now >= at => {
                self.armed = None;
                Due::Poll
            }
            _ => Due::Nothing,
        }
    }

    /// The observed status changed (e.g. `queued → processing`, `working → input_required`):
    /// the backoff restarts at `initial_ms`, since a moving call is worth looking at again soon.
    /// Floors, `Retry-After`, deadlines and the total poll count are unchanged.
    ///
    /// Call after an answer whose status differs from the previous one, before
    /// [`PollSchedule::next`]. A repeat of the same status is not progress.
    pub fn handle_progress(&mut self) {
        self.attempt = 0;
        self.backoff_ms = self.policy.initial_ms;
        self.previous_ms = self.policy.initial_ms;
    }

    /// Decides the next poll. Allocates nothing.
    ///
    /// Call at start (after the handle arrives) and after every non-terminal answer, once the
    /// `handle_*` calls for that answer are done. [`PollStep::At`] counts a poll and advances
    /// the backoff; [`PollStep::Stop`] changes nothing, so calling again gives the same stop
    /// until the inputs change (a new deadline, a new TTL).
    ///
    /// The steps, in order: `max_polls` reached → stop; `now ≥ ttl` → stop; `delay =
    /// max(jittered backoff, floor)` with `floor = max(min_interval, server interval)`; `at =
    /// max(now + delay, not_before)`; if `at > ttl`, one last look at `max(ttl, now + floor,
    /// not_before)`; if `at > deadline` → stop; else poll at `at`.
    #[must_use = "the step is the next poll time or why watching stops"]
    pub fn next(&mut self, now: u64) -> PollStep {
        if let Some(max) = self.policy.max_polls {
            if self.polls >= max {
                return PollStep::Stop(ScheduleEnd::MaxPolls);
            }
        }
        if let Some(ttl) = self.ttl_deadline {
            if now >= ttl {
                return PollStep::Stop(ScheduleEnd::TtlElapsed);
            }
        }
        let floor = self.floor_ms();
        let mut rng = self.rng;
        let follow = self.policy.follow_server_interval
            && self.server_interval_ms.is_some()
            && !self.failing;
        let sleep = if follow {
            floor
        } else {
            self.jittered(&mut rng)
        };
        let delay = sleep.max(floor);
        let not_before = self.not_before.unwrap_or(0);
        let mut at = later(now, delay).max(not_before);
        if let Some(ttl) = self.ttl_deadline {
            if at > ttl {
                at = ttl.max(later(now, floor)).max(not_before);
            }
        }
        if let Some(deadline) = self.deadline {
            if at > deadline {
                return PollStep::Stop(ScheduleEnd::Deadline);
            }
        }
        self.rng = rng;
        self.polls = self.polls.saturating_add(1);
        if follow {
            // Following the server is not backing off: the backoff waits where it was.
            return PollStep::At(at);
        }
        self.previous_ms = sleep;
        self.attempt = self.attempt.saturating_add(1);
        self.backoff_ms = grow(
            self.backoff_ms,
            self.policy.multiplier_percent,
            self.policy.cap_ms,
        );
        PollStep::At(at)
    }

    /// The floor in force: `max(min_interval_ms, latest server interval)`.
    #[must_use]
    pub fn floor_ms(&self) -> u64 {
        self.policy
            .min_interval_ms
            .max(self.server_interval_ms.unwrap_or(0))
    }

    /// The policy this schedule follows.
    #[must_use]
    pub fn policy(&self) -> &PollPolicy {
        &self.policy
    }

    /// Polls scheduled so far (never reset, not even by progress).
    #[must_use]
    pub fn polls(&self) -> u32 {
        self.polls
    }

    /// Polls scheduled since the last progress: the backoff exponent.
    #[must_use]
    pub fn attempt(&self) -> u32 {
        self.attempt
    }

    /// The latest server poll interval, if the latest answer carried one.
    #[must_use]
    pub fn server_interval_ms(&self) -> Option<u64> {
        self.server_interval_ms
    }

    /// The absolute watch deadline, if one is set.
    #[must_use]
    pub fn deadline(&self) -> Option<u64> {
        self.deadline
    }

    /// The absolute TTL deadline, if the TTL is limited.
    #[must_use]
    pub fn ttl_deadline(&self) -> Option<u64> {
        self.ttl_deadline
    }

    /// The absolute time before which no poll is scheduled (from `Retry-After`), if any.
    #[must_use]
    pub fn not_before(&self) -> Option<u64> {
        self.not_before
    }

    /// The backoff sleep of the current attempt before floors, drawn from `rng`.
    fn jittered(&self, rng: &mut Rng) -> u64 {
        let t = self.backoff_ms;
        match self.policy.jitter {
            Jitter::None => t,
            Jitter::Full => rng.between(0, t),
            Jitter::Equal => {
                let half = t / 2;
                (t - half).saturating_add(rng.between(0, half))
            }
            Jitter::Decorrelated => {
                let hi = self.previous_ms.saturating_mul(3);
                rng.between(self.policy.initial_ms, hi)
                    .min(self.policy.cap_ms)
            }
        }
    }
}

/// `min(cap, t × percent / 100)` without overflow.
fn grow(t: u64, percent: u32, cap: u64) -> u64 {
    // Split t so no product overflows and no 128-bit division is needed (it is a sizeable
    // routine in WebAssembly): t × p / 100 = (t / 100) × p + (t % 100) × p / 100.
    let p = u64::from(percent);
    (t / 100)
        .saturating_mul(p)
        .saturating_add((t % 100) * p / 100)
        .min(cap)
}

/// The poll times a fresh schedule produces from `start_ms` with no progress and a constant
/// server interval: at most `count` times, fewer if the policy's `max_polls` stops it first.
/// This is what `longcall plan` prints.
///
/// Errors: [`Error::InvalidConfig`] for a bad policy, [`Error::InvalidInput`] for a `count`
/// over [`MAX_PLAN_COUNT`].
///
/// ```
/// use longcall::poll::{plan, Jitter, PollPolicy};
/// let p = PollPolicy { jitter: Jitter::None, ..PollPolicy::default() };
/// assert_eq!(plan(p, 1, 0, 6, None).unwrap(), [1000, 3000, 7000, 15000, 31000, 61000]);
/// ```
pub fn plan(
    policy: PollPolicy,
    seed: u64,
    start_ms: u64,
    count: u32,
    server_interval_ms: Option<u64>,
) -> Result<Vec<u64>, Error> {
    if count > MAX_PLAN_COUNT {
        return Err(Error::invalid_input(
            "count",
            "at most 10000 polls can be planned",
        ));
    }
    let mut schedule = PollSchedule::new(policy, seed)?;
    schedule.handle_server_interval(server_interval_ms);
    let mut out = Vec::with_capacity(count as usize);
    let mut now = start_ms;
    for _ in 0..count {
        match schedule.next(now) {
            PollStep::At(at) => {
                out.push(at);
                now = at;
            }
            PollStep::Stop(_) => break,
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snapshot;

    fn policy(jitter: Jitter) -> PollPolicy {
        PollPolicy {
            jitter,
            ..PollPolicy::default()
        }
    }

    fn at(step: PollStep) -> u64 {
        match step {
            PollStep::At(t) => t,
            PollStep::Stop(r) => panic!("stopped: {r:?}"),
        }
    }

    /// The un-jittered ceiling of attempt `n` under the default policy.
    fn ceiling(n: u32) -> u64 {
        (1000u64 << n.min(20)).min(30_000)
    }

    #[test]
    fn rng_is_splitmix64() {
        // Reference values of SplitMix64 seeded with 0 (Vigna's splitmix64.c).
        let mut r = Rng::new(0);
        assert_eq!(r.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(r.next_u64(), 0x6E78_9E6A_A1B9_65F4);
        assert_eq!(r.next_u64(), 0x06C4_5D18_8009_454F);
    }

    #[test]
    fn between_bounds_and_degenerate_ranges() {
        let mut r = Rng::new(99);
        for _ in 0..10_000 {
            let x = r.between(3, 9);
            assert!((3..=9).contains(&x));
        }
        assert_eq!(r.between(7, 7), 7);
        assert_eq!(r.between(9, 2), 9);
        assert_eq!(r.between(u64::MAX, 0), u64::MAX);
        let _ = r.between(0, u64::MAX); // full range: no overflow
        let x = r.between(u64::MAX - 1, u64::MAX);
        assert!(x >= u64::MAX - 1);
        // Both ends are reachable.
        let mut seen = [false; 2];
        for _ in 0..1000 {
            seen[r.between(0, 1) as usize] = true;
        }
        assert_eq!(seen, [true, true]);
    }

    #[test]
    fn policy_validation() {
        PollPolicy::default().validate().unwrap();
        let d = PollPolicy::default();
        let cases = [
            (PollPolicy { initial_ms: 0, ..d }, "initial_ms"),
            (
                PollPolicy {
                    multiplier_percent: 99,
                    ..d
                },
                "multiplier_percent",
            ),
            (PollPolicy { cap_ms: 999, ..d }, "cap_ms"),
            (
                PollPolicy {
                    min_interval_ms: 0,
                    ..d
                },
                "min_interval_ms",
            ),
            (
                PollPolicy {
                    min_interval_ms: 30_001,
                    ..d
                },
                "min_interval_ms",
            ),
            (
                PollPolicy {
                    max_polls: Some(0),
                    ..d
                },
                "max_polls",
            ),
        ];
        for (p, field) in cases {
            let e = p.validate().unwrap_err();
            assert_eq!(e.code(), "invalid_config");
            assert!(
                matches!(&e, Error::InvalidConfig { field: f, .. } if f == field),
                "{e}"
            );
            assert_eq!(PollSchedule::new(p, 0).unwrap_err(), e);
        }
        PollPolicy {
            multiplier_percent: 100,
            ..d
        }
        .validate()
        .unwrap();
    }

    #[test]
    fn policy_serde_defaults_and_spelling() {
        let p: PollPolicy = serde_json::from_str("{}").unwrap();
        assert_eq!(p, PollPolicy::default());
        let json = serde_json::to_string(&PollPolicy::default()).unwrap();
        assert_eq!(
            json,
            r#"{"initial_ms":1000,"multiplier_percent":200,"cap_ms":30000,"jitter":"full","min_interval_ms":500,"max_polls":null,"follow_server_interval":true}"#
        );
        for (j, s) in [
            (Jitter::None, "\"none\""),
            (Jitter::Full, "\"full\""),
            (Jitter::Equal, "\"equal\""),
            (Jitter::Decorrelated, "\"decorrelated\""),
        ] {
            assert_eq!(serde_json::to_string(&j).unwrap(), s);
        }
        assert_eq!(
            serde_json::to_string(&ScheduleEnd::TtlElapsed).unwrap(),
            "\"ttl_elapsed\""
        );
        assert_eq!(
            serde_json::to_string(&PollStep::At(5)).unwrap(),
            r#"{"at":5}"#
        );
    }

    /// Rule 9 (P-6, P-3, P-12): the armed poll and the deadline are decided by the schedule.
    #[test]
    fn the_armed_poll_and_the_deadline_are_decided_here() {
        let mut s = PollSchedule::new(policy(Jitter::None), 0).unwrap();
        s.set_deadline(Some(3_000));
        assert_eq!(
            s.next_wake(),
            Some(3_000),
            "the deadline is a timer of its own"
        );
        assert_eq!(s.arm(0), None);
        assert_eq!(s.armed(), Some(1_000));
        assert_eq!(s.next_wake(), Some(1_000));
        assert_eq!(s.handle_timeout(999), Due::Nothing);
        assert_eq!(s.handle_timeout(1_000), Due::Poll);
        assert_eq!(s.armed(), None, "a due poll is the caller's to send");
        assert_eq!(s.handle_timeout(1_001), Due::Nothing);
        // Answered at 1 100; the next poll would be at 3 100, past the deadline: nothing is
        // armed, and watching lasts until the deadline itself (P-6), where it ends.
        s.handle_poll_answered();
        s.handle_poll_ended(1_100);
        assert_eq!(s.arm(1_100), None);
        assert_eq!((s.armed(), s.next_wake()), (None, Some(3_000)));
        assert_eq!(s.handle_timeout(2_999), Due::Nothing);
        assert_eq!(s.handle_timeout(3_000), Due::DeadlinePassed);
        assert_eq!(
            s.arm(3_000),
            Some(ScheduleEnd::Deadline),
            "at the deadline, a stop"
        );
        // A poll due exactly at the deadline still goes out; after it, nothing does.
        s.rearm(3_000);
        assert_eq!(s.handle_timeout(3_000), Due::Poll);
        s.rearm(3_000);
        assert_eq!(s.handle_timeout(3_001), Due::DeadlinePassed);
        s.disarm();
        assert_eq!(s.handle_timeout(3_000), Due::DeadlinePassed);
    }

    /// P-4: a `Retry-After` that arrives while a poll is armed (a 429 on a cancel) holds that
    /// poll back too; one that ends sooner never pulls it in. A deadline before it still ends
    /// watching at the deadline.
    #[test]
    fn retry_after_holds_the_armed_poll() {
        let mut s = PollSchedule::new(policy(Jitter::None), 0).unwrap();
        assert_eq!(s.arm(0), None);
        assert_eq!(s.armed(), Some(1_000));
        s.handle_retry_after(100, 24_000);
        assert_eq!(s.armed(), Some(24_100));
        assert_eq!(s.handle_timeout(1_000), Due::Nothing, "not at the old time");
        s.handle_retry_after(200, 10);
        assert_eq!(s.armed(), Some(24_100), "a shorter one changes nothing");
        assert_eq!(s.handle_timeout(24_100), Due::Poll);
        let mut d = PollSchedule::new(policy(Jitter::None), 0).unwrap();
        d.set_deadline(Some(5_000));
        assert_eq!(d.arm(0), None);
        d.handle_retry_after(0, 60_000);
        assert_eq!(d.next_wake(), Some(5_000));
        assert_eq!(d.handle_timeout(5_000), Due::DeadlinePassed);
    }

    /// Rule 9 (P-3, P-12): a floor raised after the poll was armed holds it, counted from the
    /// end of the last poll (a failed one included).
    #[test]
    fn a_raised_floor_holds_the_armed_poll() {
        let mut s = PollSchedule::new(policy(Jitter::None), 0).unwrap();
        s.handle_poll_failed();
        s.handle_poll_ended(500);
        assert_eq!(s.arm(500), None);
        assert_eq!(s.armed(), Some(1_500));
        s.handle_server_interval(Some(4_000));
        assert_eq!(s.armed(), Some(4_500), "last poll end + the new floor");
        s.handle_server_interval(Some(600));
        assert_eq!(
            s.armed(),
            Some(4_500),
            "a lower floor never pulls a poll in"
        );
        // A schedule that arms nothing saves as it always did.
        let fresh = PollSchedule::new(PollPolicy::default(), 1).unwrap();
        let text = snapshot::save(&fresh).unwrap();
        assert!(
            !text.contains("armed") && !text.contains("poll_ended_at"),
            "{text}"
        );
        assert_eq!(snapshot::restore::<PollSchedule>(&text).unwrap(), fresh);
        let armed: PollSchedule = snapshot::restore(&snapshot::save(&s).unwrap()).unwrap();
        assert_eq!(armed, s);
    }

    #[test]
    fn no_jitter_is_exact_exponential_with_cap() {
        let mut s = PollSchedule::new(policy(Jitter::None), 0).unwrap();
        let mut now = 0;
        for n in 0..12 {
            let t = at(s.next(now));
            assert_eq!(t - now, ceiling(n), "attempt {n}");
            now = t;
        }
    }

    #[test]
    fn full_jitter_bounds() {
        let mut s = PollSchedule::new(policy(Jitter::Full), 5).unwrap();
        let mut now = 0;
        for n in 0..2000 {
            let t = at(s.next(now));
            let d = t - now;
            assert!(d >= 500 && d <= ceiling(n), "attempt {n}: {d}");
            now = t;
        }
    }

    #[test]
    fn equal_jitter_bounds() {
        let mut s = PollSchedule::new(policy(Jitter::Equal), 6).unwrap();
        let mut now = 0;
        for n in 0..2000 {
            let t = at(s.next(now));
            let d = t - now;
            let c = ceiling(n);
            assert!(d >= c.div_ceil(2) && d <= c, "attempt {n}: {d}");
            now = t;
        }
    }

    #[test]
    fn decorrelated_jitter_bounds() {
        let mut s = PollSchedule::new(policy(Jitter::Decorrelated), 7).unwrap();
        let mut now = 0;
        let mut prev = 1000;
        for n in 0..2000 {
            let t = at(s.next(now));
            let d = t - now;
            assert!(
                (1000..=30_000).contains(&d) && d <= prev * 3,
                "attempt {n}: {d}"
            );
            prev = d;
            now = t;
        }
    }

    #[test]
    fn server_interval_is_a_floor_not_a_ceiling() {
        for jitter in [
            Jitter::None,
            Jitter::Full,
            Jitter::Equal,
            Jitter::Decorrelated,
        ] {
            let mut s = PollSchedule::new(policy(jitter), 11).unwrap();
            s.handle_server_interval(Some(45_000));
            let mut now = 100;
            for _ in 0..50 {
                let t = at(s.next(now));
                assert!(t - now >= 45_000);
                now = t;
            }
            // Not following: a small hint does not pull the backoff down below its own value.
            let p = PollPolicy {
                follow_server_interval: false,
                ..policy(Jitter::None)
            };
            let mut s = PollSchedule::new(p, 11).unwrap();
            s.handle_server_interval(Some(10));
            let mut now = 0;
            for n in 0..8 {
                let t = at(s.next(now));
                assert_eq!(t - now, ceiling(n));
                now = t;
            }
        }
    }

    #[test]
    fn stated_interval_is_followed_until_a_poll_fails() {
        for jitter in [Jitter::None, Jitter::Full, Jitter::Decorrelated] {
            let mut s = PollSchedule::new(policy(jitter), 5).unwrap();
            s.handle_server_interval(Some(1_000));
            let mut now = 0;
            for _ in 0..20 {
                let t = at(s.next(now));
                assert_eq!(t - now, 1_000, "{jitter:?}");
                now = t;
            }
            // A failed poll backs off (above the floor, from the initial delay) until an answer.
            s.handle_poll_failed();
            let mut s2 = s.clone();
            let d1 = at(s.next(now)) - now;
            let d2 = at(s2.next(now)) - now;
            assert_eq!(d1, d2);
            assert!(d1 >= 1_000);
            s.handle_poll_answered();
            assert_eq!(at(s.next(now)) - now, 1_000);
            // Retry-After still wins.
            s.handle_retry_after(now, 7_000);
            assert_eq!(at(s.next(now)), now + 7_000);
        }
    }

    #[test]
    fn min_interval_applies_without_hints_and_hint_none_clears() {
        let p = PollPolicy {
            initial_ms: 10,
            min_interval_ms: 700,
            ..policy(Jitter::Full)
        };
        let mut s = PollSchedule::new(p, 3).unwrap();
        for _ in 0..100 {
            let t = at(s.next(1000));
            assert!(t >= 1700);
        }
        s.handle_server_interval(Some(5000));
        assert_eq!(s.floor_ms(), 5000);
        s.handle_server_interval(None);
        assert_eq!(s.floor_ms(), 700);
        assert_eq!(s.server_interval_ms(), None);
    }

    #[test]
    fn retry_after_sets_not_before_and_the_later_wins() {
        let mut s = PollSchedule::new(policy(Jitter::None), 0).unwrap();
        s.handle_retry_after(1000, 60_000);
        assert_eq!(at(s.next(1000)), 61_000);
        s.handle_retry_after(2000, 1000); // earlier than the standing one: kept 61_000
        assert_eq!(s.not_before(), Some(61_000));
        assert_eq!(at(s.next(2000)), 61_000);
        // Past not_before the backoff rules again.
        let t = at(s.next(70_000));
        assert_eq!(t, 70_000 + 4000);
    }

    #[test]
    fn watch_deadline_stops_and_is_never_passed() {
        let mut s = PollSchedule::new(policy(Jitter::None), 0).unwrap();
        s.set_deadline(Some(3000));
        assert_eq!(at(s.next(0)), 1000);
        assert_eq!(at(s.next(1000)), 3000); // exactly at the deadline is allowed
        assert_eq!(s.next(3000), PollStep::Stop(ScheduleEnd::Deadline));
        // A stop changes nothing: asking again gives the same answer.
        let before = s.clone();
        assert_eq!(s.next(3000), PollStep::Stop(ScheduleEnd::Deadline));
        assert_eq!(s, before);
        // Moving the deadline resumes watching.
        s.set_deadline(None);
        assert_eq!(at(s.next(3000)), 7000);
        // Retry-After beyond the deadline stops too.
        s.set_deadline(Some(10_000));
        s.handle_retry_after(7000, 5000);
        assert_eq!(s.next(7000), PollStep::Stop(ScheduleEnd::Deadline));
    }

    #[test]
    fn ttl_last_look_then_stop() {
        let mut s = PollSchedule::new(policy(Jitter::None), 0).unwrap();
        s.set_ttl_deadline(Some(5000));
        assert_eq!(at(s.next(0)), 1000);
        assert_eq!(at(s.next(1000)), 3000);
        // 3000 + 4000 > 5000: one last look at the TTL itself.
        assert_eq!(at(s.next(3000)), 5000);
        assert_eq!(s.next(5000), PollStep::Stop(ScheduleEnd::TtlElapsed));
        // The TTL may change (extended by the server).
        s.set_ttl_deadline(Some(100_000));
        assert_eq!(at(s.next(5000)), 5000 + 8000);
        // Unlimited again.
        s.set_ttl_deadline(None);
        assert_eq!(at(s.next(13_000)), 29_000);
    }

    #[test]
    fn ttl_last_look_still_respects_floors() {
        let mut s = PollSchedule::new(policy(Jitter::None), 0).unwrap();
        s.handle_server_interval(Some(4000));
        s.set_ttl_deadline(Some(2000));
        // The floor wins over the TTL: the last look is at now + floor.
        assert_eq!(at(s.next(0)), 4000);
        assert_eq!(s.next(4000), PollStep::Stop(ScheduleEnd::TtlElapsed));
        let mut s = PollSchedule::new(policy(Jitter::None), 0).unwrap();
        s.set_ttl_deadline(Some(2000));
        s.handle_retry_after(0, 9000);
        assert_eq!(at(s.next(0)), 9000);
    }

    #[test]
    fn max_polls_counts_and_survives_progress() {
        let p = PollPolicy {
            max_polls: Some(3),
            ..policy(Jitter::Full)
        };
        let mut s = PollSchedule::new(p, 1).unwrap();
        at(s.next(0));
        at(s.next(0));
        s.handle_progress();
        at(s.next(0));
        assert_eq!(s.polls(), 3);
        assert_eq!(s.next(0), PollStep::Stop(ScheduleEnd::MaxPolls));
        assert_eq!(s.next(0), PollStep::Stop(ScheduleEnd::MaxPolls));
    }

    /// Rules P-5.
    #[test]
    fn progress_resets_the_backoff_but_not_the_floors() {
        let mut s = PollSchedule::new(policy(Jitter::None), 0).unwrap();
        let mut now = 0;
        for _ in 0..5 {
            now = at(s.next(now));
        }
        assert_eq!(s.attempt(), 5);
        s.handle_progress();
        assert_eq!(s.attempt(), 0);
        assert_eq!(at(s.next(now)) - now, 1000);
        s.handle_server_interval(Some(8000));
        s.handle_progress();
        assert_eq!(at(s.next(now)) - now, 8000);
        // Decorrelated restarts from initial too.
        let mut s = PollSchedule::new(policy(Jitter::Decorrelated), 2).unwrap();
        for _ in 0..20 {
            at(s.next(0));
        }
        s.handle_progress();
        let d = at(s.next(0));
        assert!((1000..=3000).contains(&d));
    }

    /// Rules P-8.
    #[test]
    fn saturates_at_u64_max() {
        let p = PollPolicy {
            initial_ms: u64::MAX / 2,
            multiplier_percent: u32::MAX,
            cap_ms: u64::MAX,
            jitter: Jitter::None,
            min_interval_ms: u64::MAX,
            max_polls: None,
            follow_server_interval: true,
        };
        for jitter in [
            Jitter::None,
            Jitter::Full,
            Jitter::Equal,
            Jitter::Decorrelated,
        ] {
            let mut s = PollSchedule::new(PollPolicy { jitter, ..p }, u64::MAX).unwrap();
            s.handle_server_interval(Some(u64::MAX));
            s.handle_retry_after(u64::MAX, u64::MAX);
            s.set_ttl_deadline(Some(u64::MAX));
            assert_eq!(s.next(u64::MAX - 1), PollStep::At(u64::MAX));
            assert_eq!(s.next(u64::MAX - 1), PollStep::At(u64::MAX));
            assert_eq!(s.next(u64::MAX), PollStep::Stop(ScheduleEnd::TtlElapsed));
            s.set_ttl_deadline(None);
            s.set_deadline(Some(u64::MAX));
            assert_eq!(s.next(u64::MAX), PollStep::At(u64::MAX));
        }
        let mut s = PollSchedule::new(PollPolicy::default(), 0).unwrap();
        s.set_ttl_deadline(Some(0u64.saturating_add(u64::MAX)));
        assert!(matches!(s.next(0), PollStep::At(_)));
        assert_eq!(grow(u64::MAX, u32::MAX, u64::MAX), u64::MAX);
    }

    #[test]
    fn snapshot_round_trip_continues_identically() {
        for jitter in [
            Jitter::None,
            Jitter::Full,
            Jitter::Equal,
            Jitter::Decorrelated,
        ] {
            let mut a = PollSchedule::new(policy(jitter), 1234).unwrap();
            a.set_deadline(Some(10_000_000));
            a.set_ttl_deadline(Some(5_000_000));
            a.handle_server_interval(Some(700));
            a.handle_retry_after(10, 3000);
            let mut now = 0;
            for _ in 0..7 {
                now = at(a.next(now));
            }
            let text = snapshot::save(&a).unwrap();
            assert!(text.starts_with(r#"{"kind":"poll_schedule","v":1,"#));
            let mut b: PollSchedule = snapshot::restore(&text).unwrap();
            assert_eq!(a, b);
            let mut now_b = now;
            for i in 0..200 {
                let sa = a.next(now);
                let sb = b.next(now_b);
                assert_eq!(sa, sb, "step {i}");
                if let PollStep::At(t) = sa {
                    now = t;
                    now_b = t;
                }
            }
        }
    }

    /// Rules P-2, P-8.
    #[test]
    fn same_seed_same_schedule_other_seed_differs() {
        let p = policy(Jitter::Full);
        assert_eq!(
            plan(p, 9, 0, 50, None).unwrap(),
            plan(p, 9, 0, 50, None).unwrap()
        );
        assert_ne!(
            plan(p, 9, 0, 50, None).unwrap(),
            plan(p, 10, 0, 50, None).unwrap()
        );
    }

    #[test]
    fn plan_bounds() {
        let p = PollPolicy::default();
        assert!(plan(p, 0, 0, 0, None).unwrap().is_empty());
        assert_eq!(plan(p, 0, 0, MAX_PLAN_COUNT, None).unwrap().len(), 10_000);
        assert_eq!(
            plan(p, 0, 0, MAX_PLAN_COUNT + 1, None).unwrap_err().code(),
            "invalid_input"
        );
        let limited = PollPolicy {
            max_polls: Some(4),
            ..p
        };
        assert_eq!(plan(limited, 0, 0, 100, None).unwrap().len(), 4);
        let bad = PollPolicy { cap_ms: 1, ..p };
        assert_eq!(
            plan(bad, 0, 0, 1, None).unwrap_err().code(),
            "invalid_config"
        );
        let times = plan(p, 0, 0, 100, Some(2000)).unwrap();
        let mut prev = 0;
        for t in times {
            assert!(t - prev >= 2000);
            prev = t;
        }
    }
}
