//! Wire codecs: bytes in, typed views out, and the requests a client sends.
//!
//! * [`limits`]: guarded JSON reading ([`read_json`], [`Limits`]): size, depth and string limits
//!   are checked by a cheap pre-scan before serde_json runs, so hostile input is a typed error.
//! * [`jsonrpc`]: the JSON-RPC 2.0 envelope ([`Message`], [`Id`], [`Answer`]).
//! * [`mcp2026`]: the 2026-07-28 tasks extension (flat `CreateTaskResult`, `tasks/get` with
//!   `DetailedTask`, acks, `notifications/tasks`, capability `_meta`, HTTP headers).
//! * [`mcp2025`]: the 2025-11-25 experimental tasks (nested `{task}`, `tasks/result`,
//!   `tasks/list`, cancel answered with the task, `notifications/tasks/status`).
//! * [`sume`]: Sume jobs (job objects, create answers, error envelope, `jobs_wait`, cancel).
//! * [`sume_open`]: the Sume Open API (`data` envelopes, `sume_status`, `nsfw`, `retryable`,
//!   request builders as pure data).
//! * [`sse`]: the events of a `text/event-stream` answer to a POST.
//! * [`detect`]: which MCP revision a peer speaks, from headers and shapes, never guessed.
//!
//! Every reader has two layers (M-13). The **wire structs** (`mcp2026::Task`,
//! `mcp2025::ListTasksResult`, `sume::Job`, ...) are exact: known members are typed, `_meta` is
//! kept as `meta`, and every other member is kept in a `#[serde(flatten)] extra` map, so parse →
//! serialize gives back the same JSON value. The **readers** (`read_*`, `parse_*`) are lenient and
//! fast: they read the known members in one borrowed pass (unknown members skipped), return the
//! wire-independent views of [`crate::view`], and report shape problems that are not fatal as
//! [`Violation`]s in [`Parsed::violations`]. Fatal problems (not JSON, wrong types, a missing
//! `taskId` or `status`, an unknown status, numbers that do not fit) are [`crate::Error`]s.

use alloc::vec::Vec;

use crate::violation::Violation;

pub mod detect;
pub mod jsonrpc;
pub mod limits;
pub mod mcp2025;
pub mod mcp2026;
mod scan;
pub mod sse;
pub mod sume;
pub mod sume_open;
pub(crate) mod task;

pub use jsonrpc::{Answer, Id, Message};
pub use limits::{read_json, read_json_with, Limits};

/// A value read from the wire, with the rules the peer broke while sending it.
#[derive(Clone, Debug, PartialEq)]
pub struct Parsed<T> {
    /// What was read.
    pub value: T,
    /// Non-fatal shape problems (missing `ttlMs`, wrong `resultType`, payload that contradicts
    /// the status, ...). Empty for a well-formed message.
    pub violations: Vec<Violation>,
}

impl<T> Parsed<T> {
    /// A value with no violations.
    pub fn clean(value: T) -> Parsed<T> {
        Parsed {
            value,
            violations: Vec::new(),
        }
    }
}
