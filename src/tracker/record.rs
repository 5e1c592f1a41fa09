//! The run record: what a host shows or stores about one watched call (P-10).

use alloc::string::String;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use super::StopReason;
use crate::cancel::ButtonState;
use crate::model::Model;
use crate::outcome::Outcome;
use crate::status::Status;
use crate::violation::Violation;
use crate::Json;

/// Most violations a record keeps; later ones are only counted.
pub const MAX_RECORDED_VIOLATIONS: usize = 32;

/// Everything a host needs to show or persist about a watched call.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunRecord {
    /// The model.
    pub model: Model,
    /// The task or job id, once known. It is the recovery path: persist it.
    pub handle: Option<String>,
    /// The latest status held (the first terminal status, once one was seen).
    pub status: Option<Status>,
    /// The server's poll interval in force (a floor), in milliseconds.
    pub poll_interval_ms: Option<u64>,
    /// When the last observation arrived (host time, ms).
    pub last_observed_at: Option<u64>,
    /// When the next poll is due (absolute, ms).
    pub next_poll_at: Option<u64>,
    /// The TTL deadline, if any: when the host received the handle plus `ttlMs` (the latest
    /// `ttlMs` the server stated). The host's own clock, never the server's `createdAt`, so clock
    /// skew cannot expire a handle early; see [`crate::poll`] rule 6.
    pub ttl_deadline: Option<u64>,
    /// Polls sent so far.
    pub polls_sent: u32,
    /// What the cancel button shows.
    pub cancel: ButtonState,
    /// The verified final outcome, once settled.
    pub outcome: Option<Outcome>,
    /// Why watching stopped without an outcome, if it did.
    pub stopped: Option<StopReason>,
    /// Violations seen (the first [`MAX_RECORDED_VIOLATIONS`]).
    pub violations: Vec<Violation>,
    /// How many violations were seen in all.
    pub violation_count: u32,
    /// The settled result as the server sent it (see [`super::Output::Settled`]), kept so a
    /// resumed host can show it without asking again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Json>,
    /// The settled error as the server sent it (see [`super::Output::Settled`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<Json>,
}

// Read member by member from a `Value` object (`crate::tagged`): a derived reader would also
// compile an array form nobody writes.
impl<'de> Deserialize<'de> for RunRecord {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut f = crate::tagged::members(d, "struct RunRecord")?;
        Ok(RunRecord {
            model: f.req("model")?,
            handle: f.opt("handle")?,
            status: f.opt("status")?,
            poll_interval_ms: f.opt("poll_interval_ms")?,
            last_observed_at: f.opt("last_observed_at")?,
            next_poll_at: f.opt("next_poll_at")?,
            ttl_deadline: f.opt("ttl_deadline")?,
            polls_sent: f.req("polls_sent")?,
            cancel: f.req("cancel")?,
            outcome: f.opt("outcome")?,
            stopped: f.opt("stopped")?,
            violations: f.req("violations")?,
            violation_count: f.req("violation_count")?,
            result: f.opt("result")?,
            error: f.opt("error")?,
        })
    }
}
