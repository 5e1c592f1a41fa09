//! # longcall
//!
//! The lifecycle brain for calls that outlive a request: MCP tasks (the 2026-07-28 extension
//! `io.modelcontextprotocol/tasks` and the 2025-11-25 experimental design) and Sume-style paid
//! jobs. It decides; the host does the I/O.
//!
//! ## Start here
//!
//! One [`endpoint::CallEndpoint`] per call speaks the wire: hand it what arrived, exactly as it
//! arrived, send what it emits, and wake it when it asks. [`endpoint::CallEndpoint::call_tool`]
//! starts an MCP tool call (a task on either revision), [`endpoint::CallEndpoint::submit_job`]
//! a paid job; the run loop is `examples/run_loop.rs` and the module page of [`endpoint`].
//!
//! ```
//! use longcall::endpoint::{CallEndpoint, Config, Event, Transmit};
//! use longcall::Model;
//!
//! let args = serde_json::json!({"prompt": "a cat"});
//! let seed = 0x5eed; // from your random source: each call its own, for its poll jitter
//! let mut ep = CallEndpoint::call_tool(Model::Task2026, "render", args, None, Config::with_seed(seed))?;
//! // The first thing to do: send the `tools/call` (its answer goes to `handle_message`).
//! assert!(matches!(ep.poll_event(), Event::Transmit(Transmit::Rpc { .. })));
//! # Ok::<(), longcall::Error>(())
//! ```
//!
//! Time is the host's: pass the same clock's milliseconds throughout. A time earlier than one
//! already passed is taken as it is (the next poll counts from it), never refused, so prefer a
//! clock that does not step back.
//!
//! ## What is inside
//!
//! * **Rules as pure functions** (S-6). [`lifecycle`] (is this transition legal, is this
//!   observation consistent), [`outcome`] (what a settled call means), [`cancel`] (the cancel
//!   window, what every cancel answer means, an honest cancel button), [`poll`] (when to poll
//!   next), [`batch`] (which ids go in the next `jobs_wait`), [`admission`] (what a submit answer
//!   means and what to do next), [`ownership`], [`mapping`].
//! * **State machines per watched call** in [`tracker`]: `handle_*(now, input)`, then drain
//!   [`tracker::Output`]s until `Output::WakeAt { at }` (call `handle_timeout(at)` then, or
//!   earlier when the next input arrives) or `Output::Idle`. [`wave`] schedules many jobs into
//!   `jobs_wait` calls of at most 20 ids, earliest deadline first. [`watch`] holds many calls
//!   in one list with one next wake, and orders the host's store writes before the wire so a
//!   restart loses nothing.
//! * **Wire codecs** in [`wire`]: the JSON-RPC messages of both MCP revisions and the Sume job
//!   answers, read with size and depth limits into [`view`] types, and requests built with the
//!   right `_meta` and headers.
//! * **Reference servers** in [`server`]: a task registry and a job book, for mocks, conformance
//!   runs and fuzz oracles.
//! * **Scenario vectors** in [`vector`]: the data-only format every host replays identically.
//!
//! ## Rules of the road
//!
//! * **No I/O, no clock, no randomness** (P-8). Time is a `u64` of milliseconds passed in by the
//!   host (any epoch, as long as it is the same one throughout); jitter comes from a seed.
//! * **No panics** (S-1). Bad input gets an [`Error`] with a stable [`Error::code`], and the value
//!   that returned it stays usable. A panic is a bug.
//! * **Snapshots** ([`snapshot`]) hold absolute deadlines and restore exactly.
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]
// quinn-proto style: a value the caller drops unread (a poll, a constructor, a rule's answer)
// is a bug, so every such function says so.
#![warn(clippy::must_use_candidate, clippy::return_self_not_must_use)]
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing
    )
)]

extern crate alloc;
#[cfg(test)]
extern crate std;

pub mod admission;
pub mod batch;
pub mod cancel;
pub mod endpoint;
pub mod error;
pub mod job_vocab;
mod json;
pub mod lifecycle;
pub mod mapping;
pub mod model;
pub mod outcome;
pub mod ownership;
pub mod poll;
pub mod probe_rules;
pub mod server;
pub mod snapshot;
pub mod status;
mod tagged;
mod text;
pub mod time;
pub mod tracker;
pub mod vector;
pub mod view;
pub mod violation;
pub mod watch;
pub mod wave;
// The codecs' getters are not marked yet (left for the reader's rework, to keep diffs apart).
#[allow(clippy::must_use_candidate)]
pub mod wire;

pub use error::Error;
pub use json::{text as json_text, Json};
pub use model::Model;
pub use status::Status;
pub use violation::{Level, Rule, Violation};
