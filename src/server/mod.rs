//! Reference server models: the other side of the wire, pure and deterministic.
//!
//! * [`TaskRegistry`]: an MCP task server (2026-07-28 extension or 2025-11-25 experimental,
//!   chosen at construction). Status is derived from state (a terminal payload, else pending
//!   input requests, else working), the first terminal write wins, TTL expiry and retention
//!   are swept by [`TaskRegistry::handle_timeout`], tasks are bound to their principal.
//! * [`JobBook`]: a Sume-style job server: ownership by (workspace, member), queue-first
//!   admission with a per-workspace concurrency limit, a queue limit, credits, idempotency
//!   keys for submit and cancel, the cancel window and its 409s, batch waits.
//! * [`OpenApiServer`]: the job book behind the Sume Open API: HTTP requests as data in,
//!   answers as data out, per-key ownership, a queue wait before generation, scripted 429/503.
//!
//! Both are used for mock servers, the MCP conformance fixtures (through the Node server that
//! wraps the registry via WebAssembly) and as fuzz oracles.
//!
//! ## How a host drives them
//!
//! * The host owns the clock and every id: each call takes `now` (milliseconds, one epoch
//!   throughout) and the host supplies unguessable task and job ids. Nothing inside is random.
//! * **Client-side** methods (`get`, `cancel`, `update`, `wait`, ...) take the caller's identity
//!   and return the domain answer or the protocol error ([`RpcError`](crate::view::RpcError) for
//!   tasks, [`ApiError`](crate::view::ApiError) for jobs). A caller who does not own an id gets
//!   exactly the answer an unknown id gets.
//! * **Worker-side** writes (`complete`, `fail`, ...) return a [`WriteOutcome`]: applied, or
//!   ignored with the reason. A late write is never a panic and never an error.
//! * **Timers**: call `handle_timeout(now)` whenever `now` reaches `poll_timeout()` (the
//!   registry; the job book has no timers). `dispatch(now)` on the job book moves queued jobs
//!   into free slots: call it after every submit, complete, fail, expire or cancel.
//! * Both implement [`crate::snapshot::Snapshot`] and restore exactly. A server restored at
//!   start resumes or fails what [`TaskRegistry::unsettled`] names (their workers went with the
//!   old process) and may [`TaskRegistry::set_config`] the configuration it now runs with.
//!
//! Wire codecs are not here ([`crate::wire`]): answers are the shared view types.

pub mod answer;
pub mod gate;
mod job_book;
mod open_api;
mod registry;

pub use job_book::{
    CancelRule, JobBook, JobBookConfig, WaitEntry, WaitFor, WaitSnapshot, CANCEL_TABLE,
    MAX_WAIT_IDS,
};
pub use open_api::{
    api_key, CatalogModel, Counters, Ending, HttpAnswer, JobCounters, OpenApiConfig, OpenApiServer,
    MAX_HOLD_SECONDS,
};
pub use registry::{
    CancelMode, CancelReply, RegistryConfig, ResultAnswer, Sweep, TaskPage, TaskRegistry,
    UpdateAck, CANCELLED_RESULT_CODE, CANCELLED_RESULT_MESSAGE, TASK_NOT_FOUND_MESSAGE,
    TTL_EXPIRED_CODE, TTL_EXPIRED_MESSAGE,
};

use serde::{Deserialize, Serialize};

use crate::status::Status;

/// What became of a worker-side write (`complete`, `fail`, `request_input`, ...).
///
/// Only [`WriteOutcome::Applied`] changed anything; every other variant says why the write was
/// ignored, so a worker that lost a race learns it from the answer, not from a panic.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum WriteOutcome {
    /// The write took effect.
    Applied,
    /// The call was already terminal: the first terminal write wins; this one is dropped.
    IgnoredTerminal {
        /// The terminal status that stays.
        status: Status,
    },
    /// The write is not a transition from the current status (a job `complete` while `queued`).
    NotAllowed {
        /// The current status.
        status: Status,
    },
    /// Task: a cancel was requested, so new input requests are moot and dropped.
    IgnoredCancelRequested,
    /// No such id: never created, or expired and purged.
    UnknownId,
}

impl WriteOutcome {
    /// True when the write took effect.
    #[must_use]
    pub const fn is_applied(&self) -> bool {
        matches!(self, WriteOutcome::Applied)
    }
}

/// Serializes a map with non-string keys as a list of `[key, value]` pairs (JSON maps need
/// string keys).
pub(crate) mod pairs {
    use alloc::collections::BTreeMap;
    use alloc::vec::Vec;

    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub(crate) fn serialize<S, K, V>(map: &BTreeMap<K, V>, s: S) -> Result<S::Ok, S::Error>
    where
        S: Serializer,
        K: Serialize,
        V: Serialize,
    {
        s.collect_seq(map.iter())
    }

    pub(crate) fn deserialize<'de, D, K, V>(d: D) -> Result<BTreeMap<K, V>, D::Error>
    where
        D: Deserializer<'de>,
        K: Deserialize<'de> + Ord,
        V: Deserialize<'de>,
    {
        let list: Vec<(K, V)> = Vec::deserialize(d)?;
        Ok(list.into_iter().collect())
    }
}
