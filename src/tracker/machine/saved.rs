//! The tracker's snapshot form (S-4): the shape snapshots always had, one field per fact, read
//! into the explicit state and written back from it. Facts the state derives (the interval and
//! TTL deadline held by the schedule, the in-flight flags of the cancel and the result fetch)
//! are written from it, so a snapshot the tracker could have written restores and saves again
//! byte for byte.

use alloc::collections::VecDeque;
use alloc::string::String;
use alloc::vec::Vec;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::{Call, CancelProgress, Ended, Inputs, MrtrRound, ResultFetch, Tracker, Watch};
use crate::cancel::CancelButton;
use crate::model::Model;
use crate::outcome::{Outcome, Payload};
use crate::poll::PollSchedule;
use crate::status::Status;
use crate::tracker::keys::InputKeys;
use crate::tracker::{Output, StopReason};
use crate::violation::Violation;
use crate::Json;

/// Requests on the wire that have not been answered yet.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
struct InFlight {
    get: bool,
    cancel: bool,
    update: bool,
    fetch: bool,
}

// Read member by member from a `Value` object (`crate::tagged`): a derived reader would also
// compile an array form nobody writes.
impl<'de> Deserialize<'de> for InFlight {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut f = crate::tagged::members(d, "struct InFlight")?;
        Ok(InFlight {
            get: f.req("get")?,
            cancel: f.req("cancel")?,
            update: f.req("update")?,
            fetch: f.req("fetch")?,
        })
    }
}

/// The keys of a call that has no handle yet.
static NO_KEYS: InputKeys = InputKeys::EMPTY;

/// Written from a tracker without copying it.
#[derive(Serialize)]
struct SavedRef<'a> {
    model: Model,
    schedule: PollSchedule,
    button: &'a CancelButton,
    handle: Option<&'a str>,
    status: Option<Status>,
    server_interval_ms: Option<u64>,
    created_at: Option<u64>,
    ttl_deadline: Option<u64>,
    next_poll_at: Option<u64>,
    in_flight: InFlight,
    keys: &'a InputKeys,
    unacked: &'a [(String, Json)],
    resend_update: bool,
    fetched: Option<Payload>,
    fetch_sent: bool,
    cancel_requested: bool,
    started_per_409: bool,
    born_terminal: bool,
    mrtr: Option<&'a MrtrRound>,
    result: &'a Option<Json>,
    error: &'a Option<Json>,
    outcome: Option<Outcome>,
    stopped: Option<StopReason>,
    last_observed_at: Option<u64>,
    last_poll_answer_at: Option<u64>,
    polls_sent: u32,
    violations: &'a [Violation],
    violation_count: u32,
    queue: &'a VecDeque<Output>,
}

/// Read into a tracker (members taken from a `Value` object by name: a derived reader would
/// also compile an array form nobody writes).
struct Saved {
    model: Model,
    schedule: PollSchedule,
    button: CancelButton,
    handle: Option<String>,
    status: Option<Status>,
    created_at: Option<u64>,
    next_poll_at: Option<u64>,
    in_flight: InFlight,
    keys: InputKeys,
    unacked: Vec<(String, Json)>,
    resend_update: bool,
    fetched: Option<Payload>,
    // `fetch_sent` is derived: sent and not answered is `in_flight.fetch`.
    cancel_requested: bool,
    // Absent in older snapshots: the default.
    started_per_409: bool,
    // Absent in older snapshots: the default.
    born_terminal: bool,
    // Absent in older snapshots: the default.
    mrtr: Option<MrtrRound>,
    // Absent in older snapshots: the default.
    result: Option<Json>,
    // Absent in older snapshots: the default.
    error: Option<Json>,
    outcome: Option<Outcome>,
    stopped: Option<StopReason>,
    last_observed_at: Option<u64>,
    last_poll_answer_at: Option<u64>,
    polls_sent: u32,
    violations: Vec<Violation>,
    violation_count: u32,
    queue: VecDeque<Output>,
}

impl<'de> Deserialize<'de> for Saved {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut f = crate::tagged::members(d, "struct Saved")?;
        Ok(Saved {
            model: f.req("model")?,
            schedule: f.req("schedule")?,
            button: f.req("button")?,
            handle: f.opt("handle")?,
            status: f.opt("status")?,
            created_at: f.opt("created_at")?,
            next_poll_at: f.opt("next_poll_at")?,
            in_flight: f.req("in_flight")?,
            keys: f.req("keys")?,
            unacked: f.req("unacked")?,
            resend_update: f.req("resend_update")?,
            fetched: f.opt("fetched")?,
            cancel_requested: f.req("cancel_requested")?,
            started_per_409: f.def("started_per_409")?,
            born_terminal: f.def("born_terminal")?,
            mrtr: f.opt("mrtr")?,
            result: f.opt("result")?,
            error: f.opt("error")?,
            outcome: f.opt("outcome")?,
            stopped: f.opt("stopped")?,
            last_observed_at: f.opt("last_observed_at")?,
            last_poll_answer_at: f.opt("last_poll_answer_at")?,
            polls_sent: f.req("polls_sent")?,
            violations: f.req("violations")?,
            violation_count: f.req("violation_count")?,
            queue: f.req("queue")?,
        })
    }
}

impl Serialize for Tracker {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let watch = match &self.call {
            Call::Watching(w) => Some(w),
            Call::Creating { .. } => None,
        };
        let round = match &self.call {
            Call::Creating { round } => round.as_ref(),
            Call::Watching(_) => None,
        };
        let fetch = watch.map_or(ResultFetch::NotSent, |w| w.result_fetch);
        let cancel = watch.map_or(CancelProgress::NotRequested, |w| w.cancel);
        let mut schedule = self.schedule.clone();
        schedule.disarm();
        schedule.forget_poll_end();
        SavedRef {
            model: self.model,
            schedule,
            button: &self.button,
            handle: watch.map(|w| w.handle.as_str()),
            status: self.status,
            server_interval_ms: self.schedule.server_interval_ms(),
            created_at: watch.and_then(|w| w.created_at),
            ttl_deadline: self.schedule.ttl_deadline(),
            next_poll_at: self.schedule.armed(),
            in_flight: InFlight {
                get: watch.is_some_and(|w| w.poll_in_flight),
                cancel: cancel == CancelProgress::InFlight,
                update: watch.is_some_and(|w| w.inputs.in_flight),
                fetch: fetch == ResultFetch::InFlight,
            },
            keys: watch.map_or(&NO_KEYS, |w| &w.inputs.keys),
            unacked: watch.map_or(&[], |w| w.inputs.unacked.as_slice()),
            resend_update: watch.is_some_and(|w| w.inputs.resend),
            fetched: match fetch {
                ResultFetch::Answered(p) => Some(p),
                _ => None,
            },
            fetch_sent: fetch != ResultFetch::NotSent,
            cancel_requested: cancel != CancelProgress::NotRequested,
            started_per_409: watch.is_some_and(|w| w.started_per_409),
            born_terminal: watch.is_some_and(|w| w.born_terminal),
            mrtr: round,
            result: &self.result,
            error: &self.error,
            outcome: match self.ended {
                Some(Ended::Settled(o)) => Some(o),
                _ => None,
            },
            stopped: match self.ended {
                Some(Ended::Stopped(r)) => Some(r),
                _ => None,
            },
            last_observed_at: self.last_observed_at,
            last_poll_answer_at: self.schedule.poll_ended_at(),
            polls_sent: self.polls_sent,
            violations: &self.violations,
            violation_count: self.violation_count,
            queue: &self.queue,
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for Tracker {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = Saved::deserialize(d)?;
        // One call, one model (S-7): the status and the button are of the tracker's.
        if s.status
            .is_some_and(|st| !Status::of(s.model).contains(&st))
        {
            return Err(serde::de::Error::custom(
                "status is not a status of the model",
            ));
        }
        if s.button.model() != s.model {
            return Err(serde::de::Error::custom("the button is of another model"));
        }
        let mut schedule = s.schedule;
        schedule.disarm();
        schedule.forget_poll_end();
        if let Some(at) = s.next_poll_at {
            schedule.rearm(at);
        }
        if let Some(at) = s.last_poll_answer_at {
            schedule.handle_poll_ended(at);
        }
        let call = match s.handle {
            None => Call::Creating { round: s.mrtr },
            Some(handle) => Call::Watching(Watch {
                handle,
                created_at: s.created_at,
                born_terminal: s.born_terminal,
                poll_in_flight: s.in_flight.get,
                cancel: if s.in_flight.cancel {
                    CancelProgress::InFlight
                } else if s.cancel_requested {
                    CancelProgress::Answered
                } else {
                    CancelProgress::NotRequested
                },
                started_per_409: s.started_per_409,
                inputs: Inputs {
                    keys: s.keys,
                    unacked: s.unacked,
                    in_flight: s.in_flight.update,
                    resend: s.resend_update,
                },
                result_fetch: match (s.fetched, s.in_flight.fetch) {
                    (Some(p), _) => ResultFetch::Answered(p),
                    (None, true) => ResultFetch::InFlight,
                    (None, false) => ResultFetch::NotSent,
                },
            }),
        };
        // Stopped wins over settled: a stopped tracker refuses every input.
        let ended = match (s.stopped, s.outcome) {
            (Some(r), _) => Some(Ended::Stopped(r)),
            (None, Some(o)) => Some(Ended::Settled(o)),
            (None, None) => None,
        };
        Ok(Tracker {
            model: s.model,
            schedule,
            button: s.button,
            status: s.status,
            call,
            ended,
            result: s.result,
            error: s.error,
            last_observed_at: s.last_observed_at,
            polls_sent: s.polls_sent,
            violations: s.violations,
            violation_count: s.violation_count,
            queue: s.queue,
        })
    }
}
