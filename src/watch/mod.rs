//! Watch lists: many watched calls in one value, with one output stream, one next wake, and a
//! crash-safe order between the host's store and the wire. Sans-io like [`crate::tracker`].
//!
//! ```
//! use longcall::tracker::{Output, TrackerConfig};
//! use longcall::watch::{CallId, WatchConfig, WatchList, WatchOutput};
//! use longcall::Model;
//!
//! let mut list = WatchList::new(WatchConfig::default());
//! // A task id the host kept from before a restart (or `add_new` / `resume_call`).
//! list.add_handle(0, CallId(7), Model::Task2026, "task-7", TrackerConfig::default())?;
//! let mut store = std::collections::HashMap::new();
//! let mut sent = Vec::new();
//! while let Some(out) = list.poll_output() {
//!     match out {
//!         // Write the record, then confirm it: what it holds back is released after.
//!         WatchOutput::Persist { call } => {
//!             let saved = list.save_call(call)?;
//!             store.insert(call, saved.text);
//!             list.handle_persisted(call, saved.version)?;
//!         }
//!         WatchOutput::Call { call, output: Output::Send { request } } => sent.push((call, request)),
//!         WatchOutput::Create { .. } => { /* send the creating request */ }
//!         WatchOutput::CreateUnanswered { .. } => { /* reconcile: never re-send */ }
//!         WatchOutput::Removed { call } => { store.remove(&call); }
//!         _ => { /* the other tracker outputs: prompts, button, status, settled */ }
//!     }
//! }
//! // The handle reached the store before the first poll left (R-2).
//! assert!(store.contains_key(&CallId(7)));
//! assert_eq!(sent.len(), 1);
//! // Then sleep until `list.poll_timeout()` or the next answer: `handle_timeout` / `handle_input`.
//! # Ok::<(), longcall::Error>(())
//! ```
//!
//! **Every `add_*`, `handle_*` and `remove` may queue outputs; drain [`WatchList::poll_output`]
//! until it returns `None`, then sleep until [`WatchList::poll_timeout`] (call
//! [`WatchList::handle_timeout`] then) or until the next input, whichever comes first.**
//!
//! Each call is named by a [`CallId`] the host chooses. A call's *record* is what the host's
//! store keeps about it ([`WatchList::save_call`], restored by [`WatchList::resume_call`]); the
//! list says which record changed ([`WatchOutput::Persist`]) so a store writes only that one.
//!
//! Rules, written once:
//!
//! * **R-1 Intent before the request.** A new call's intent (its model, what is called and, for a
//!   job API, the submit's idempotency key) is in the call's record, and that record is confirmed
//!   persisted, before the list releases the [`WatchOutput::Create`] that tells the host to send
//!   it. A job intent without an idempotency key, or an MCP intent with one, is refused. A create
//!   answer fed before the `Create` was released is refused. Once the handle is known the
//!   intent leaves the record: nothing is reconciled from it any more.
//! * **R-2 Handle before acting.** A handle (from a create answer, or given to
//!   [`WatchList::add_handle`]) is in a record confirmed persisted before anything that uses it
//!   is released: no poll, cancel, input update or prompt goes out first.
//! * **R-3 Outcome before done.** `Settled` (with its payload) and `Stopped` are released only
//!   after the record holding them is confirmed persisted. The record stays until the host
//!   [`WatchList::remove`]s the call; a resumed call that had ended reports its ending again, so
//!   reporting is at least once and the [`CallId`] is the key that makes it exactly once.
//! * **R-4 Behind the record, in order.** Generally: every output of a call carries the record
//!   version it follows from and is released, in the order made, once the host confirms that
//!   version (or a later one) with [`WatchList::handle_persisted`]. A [`WatchOutput::Persist`]
//!   is queued when a call's record changes and none of that call's is waiting to be drained.
//!   With [`WatchConfig::durable`] off (a host with no store) every version counts as persisted
//!   at once and no `Persist` is emitted.
//! * **R-5 Reconcile, never re-send blindly.** A create that got no answer
//!   ([`crate::tracker::Input::CreateUnanswered`]), and a resumed record holding an intent
//!   without a handle, are reconciled: for a job API the same submit with the same
//!   idempotency key is released again (`Create { resend: true }`: the one legal re-send, at most
//!   [`WatchConfig::max_create_resends`] times over the call's life, counted in the record); for
//!   MCP a typed [`WatchOutput::CreateUnanswered`] hands the intent to the host and the call
//!   stops. A `tools/call` is never sent twice. What the host finds goes back into the same
//!   record with [`WatchList::adopt_handle`] (one write: a crash between forgetting the call
//!   and watching its handle would lose it).
//! * **R-6 Requests in flight at a crash are lost in transport.** Resuming a record, every
//!   request that was released or about to be counts as failed without an answer: a poll as
//!   failed now (so the poll floors count from the restart), an input update and a 2025 result
//!   fetch are sent again by the tracker, and a pressed cancel is pressed again (a job's cancel
//!   keeps its idempotency key). Inputs are durable once the record version they made is
//!   confirmed: a press in a written record is never dropped (until then its `Send` is
//!   withheld, so a press lost with the host never reached the server either).
//! * **R-7 Each prompt once.** An input prompt (`AskUser`) is released once per key over the
//!   call's life, restarts included. Prompts still unanswered when a call is resumed are listed
//!   by [`WatchList::open_prompts`] for the host to show again as state; they are not re-emitted.
//! * **R-8 One next wake.** [`WatchList::poll_timeout`] is the earliest wake over all calls,
//!   kept in an ordered set updated in O(log n) per change; [`WatchList::handle_timeout`] drives
//!   every call due, and only those.
//! * **R-9 Giving a call up is not ending it.** [`WatchList::remove`] ends a call for good (its
//!   record is deleted); [`WatchList::unload`] only drops it from this list (a lease taken by
//!   another host): its record stays as last written and is resumed elsewhere under R-3, R-5,
//!   R-6 and R-7, so a host that loses a lease must unload the call before it acts on it again.
//! * **R-10 Act only well inside the lease.** A host holding a call under a lease of
//!   `lease_ms` writes its record, and acts on what the write releases, only while at least
//!   [`lease_margin_ms`] of the lease is left: the time a write and the sends it releases take
//!   must end before the lease can pass to another host, or two hosts' polls of one call land
//!   closer than the floor. A fenced store refuses a write later than that (the call is then
//!   unloaded, R-9), a write that came back after the margin passed releases nothing until it
//!   is made again in time, and the holder renews well before the margin.
//! * **R-11 Time never runs back across hosts.** A record keeps the latest time the call was
//!   driven at ([`WatchList::handle_input`], [`WatchList::handle_timeout`]); a host that resumes
//!   it counts the requests in flight as lost (R-6) no earlier than that, so the floors count
//!   from no earlier than the last holder's last act, whatever the new holder's clock says.
//!
//! Snapshots: [`WatchList`] is a [`crate::snapshot::Snapshot`] (kind `watch_list`) that
//! restores exactly, withheld outputs included, for moving a live list. After a crash, resume
//! each call from its stored record instead (kind `watch_call`, rules R-3, R-5, R-6, R-7).

// The list's getters are not marked yet (left for its own rework, to keep diffs apart).
#[allow(clippy::must_use_candidate)]
mod list;

pub use list::WatchList;

use alloc::string::String;
use core::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::model::Model;
use crate::tracker::Output;

/// R-10: the last part of a lease (`1/LEASE_MARGIN_PARTS` of it) in which its holder no longer
/// acts.
const LEASE_MARGIN_PARTS: u64 = 4;

/// R-10: how long before a lease of `lease_ms` ends its holder stops acting on the calls it
/// holds (writing their records and sending what the writes release). A fenced store refuses a
/// write made with less than this left.
///
/// ```
/// assert_eq!(longcall::watch::lease_margin_ms(1_000), 250);
/// ```
#[must_use]
pub const fn lease_margin_ms(lease_ms: u64) -> u64 {
    lease_ms / LEASE_MARGIN_PARTS
}

/// Names one call in a watch list: a number the host chooses, e.g. its store's row id.
///
/// A number rather than a string: it is `Copy` and 8 bytes, so keying the call map, the wake
/// set and every output by it allocates nothing per event, and a store keeps it as an integer
/// primary key. A host with string names keeps them in its own column (or in the intent).
/// JavaScript hosts keep it at most `Number.MAX_SAFE_INTEGER`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct CallId(pub u64);

impl fmt::Display for CallId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// What a new call will create, recorded before the request leaves (R-1).
///
/// ```
/// use longcall::watch::Intent;
/// use longcall::Model;
/// let submit = Intent {
///     model: Model::Job,
///     request: serde_json::json!({"prompt": "a red bicycle"}),
///     idempotency_key: Some("render-7".into()),
/// };
/// assert!(submit.check().is_ok());
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Intent {
    /// The model of the call.
    pub model: Model,
    /// What is called, as the host will send it (MCP: the tool name and arguments; a job: the
    /// submit body). The core keeps it for the record and never reads it.
    pub request: Value,
    /// A job API's idempotency key, the same for every send of this submit. MCP has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotency_key: Option<String>,
}

impl Intent {
    /// Checks R-1's shape: a job intent has a non-empty idempotency key, an MCP intent none.
    pub fn check(&self) -> Result<(), crate::Error> {
        match (self.model, self.idempotency_key.as_deref()) {
            (Model::Job, Some(k)) if !k.is_empty() => Ok(()),
            (Model::Job, _) => Err(crate::Error::invalid_input(
                "idempotency_key",
                "a job submit needs an idempotency key: it is the only safe way to send it again",
            )),
            (_, None) => Ok(()),
            (_, Some(_)) => Err(crate::Error::invalid_input(
                "idempotency_key",
                "an MCP tools/call has no idempotency key; it is never sent twice",
            )),
        }
    }
}

/// How a watch list works.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct WatchConfig {
    /// The host keeps records in a store: outputs wait for [`WatchList::handle_persisted`]
    /// (R-4). Off only for a host with no store at all.
    pub durable: bool,
    /// How many times a job submit may be sent again with its idempotency key (R-5).
    pub max_create_resends: u8,
}

impl Default for WatchConfig {
    /// Durable, three re-sends of a job submit.
    fn default() -> Self {
        WatchConfig {
            durable: true,
            max_create_resends: 3,
        }
    }
}

/// Something the host must do, drained from [`WatchList::poll_output`]. Each names its call.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum WatchOutput {
    /// The call's record changed: write [`WatchList::save_call`] to the store, then confirm its
    /// version with [`WatchList::handle_persisted`]. The call's next outputs wait for that.
    Persist {
        /// The call.
        call: CallId,
    },
    /// Send the creating request (`tools/call`, or a job submit with the intent's idempotency
    /// key); answer with [`WatchList::handle_input`] (`TaskCreated`, `JobCreated`,
    /// `CallResult`, `CallError` or `CreateUnanswered`).
    Create {
        /// The call.
        call: CallId,
        /// What to send.
        intent: Intent,
        /// A job submit sent again with the same idempotency key (R-5).
        resend: bool,
    },
    /// A create may or may not have made a task or job, and longcall will not send it again
    /// (R-5): always for MCP, for a job once its re-sends are used up. The call stopped;
    /// reconcile (look it up, or ask the user), then [`WatchList::adopt_handle`] what was
    /// found, or [`WatchList::remove`] the call.
    CreateUnanswered {
        /// The call.
        call: CallId,
        /// What was called.
        intent: Intent,
    },
    /// What the call's tracker says (`Send`, `AskUser`, `Button`, `Status`, `Violation`,
    /// `Settled`, `Stopped`; never `WakeAt` or `Idle`: the list owns the timers).
    Call {
        /// The call.
        call: CallId,
        /// The tracker's output.
        output: Output,
    },
    /// The call was removed: delete its record.
    Removed {
        /// The call.
        call: CallId,
    },
}

impl WatchOutput {
    /// The call this output names.
    #[must_use]
    pub fn call(&self) -> CallId {
        match self {
            WatchOutput::Persist { call }
            | WatchOutput::Create { call, .. }
            | WatchOutput::CreateUnanswered { call, .. }
            | WatchOutput::Call { call, .. }
            | WatchOutput::Removed { call } => *call,
        }
    }
}

/// A call's record as the store writes it: a few columns a store indexes, and the text that
/// [`WatchList::resume_call`] reads back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SavedCall {
    /// The call.
    pub call: CallId,
    /// The version to confirm with [`WatchList::handle_persisted`] once written.
    pub version: u64,
    /// The model.
    pub model: Model,
    /// When the call next needs [`WatchList::handle_timeout`] (absolute ms), if ever: what a
    /// store shared by several hosts leases by.
    pub next_wake_at: Option<u64>,
    /// True once the call settled or stopped (its ending is in the record).
    pub done: bool,
    /// The record, a versioned snapshot of kind `watch_call`.
    pub text: String,
}
