//! The reference MCP task server: a registry of tasks for one revision.
//!
//! Rules (`docs/rules.md`, whose rows name the MCP sections), written once:
//!
//! 1. **Status is derived, never stored** (M-2) (rmcp `task_manager` style): a terminal payload
//!    gives its terminal status; else a non-empty set of pending input requests gives
//!    `input_required`; else `working`. So `inputRequests` is present iff `input_required`,
//!    `result` iff `completed` (2026), `error` iff `failed` (2026).
//! 2. **First terminal write wins** (L-6). `complete`, `fail`, `settle_cancelled`, a 2025 cancel
//!    and the 2026 TTL expiry all try to set the terminal payload; only the first one does. Later
//!    ones answer [`WriteOutcome::IgnoredTerminal`]. Terminal is absorbing.
//! 3. **isError** (M-7). 2026: a tool result with `isError: true` stays `completed`. 2025: it makes
//!    the task `failed`, and `tasks/result` still returns the `CallToolResult`.
//! 4. **Principal binding** (W-2). A task belongs to the principal that created it. Every other
//!    principal gets exactly the answer an unknown id gets: `-32602` with
//!    [`TASK_NOT_FOUND_MESSAGE`], for every method, and the registry does not change.
//! 5. **Input keys** (I-4, I-5) are unique over a task's life: reusing one is [`Error::Duplicate`].
//!    `tasks/update` routes answered keys to the worker ([`TaskRegistry::take_input_responses`])
//!    and silently ignores keys that are not outstanding; a partial answer keeps
//!    `input_required` with the remaining keys.
//! 6. **Cancel** (C-2, C-3, C-5, C-6). 2026: a known id is always acked (also when terminal); the
//!    intent is recorded and pending input requests are dropped, so the task reads `working` until
//!    the worker settles it ([`CancelMode::Cooperative`]), or it settles `cancelled` at once
//!    ([`CancelMode::Immediate`], what the conformance fixture `slow_compute` needs). 2025: a
//!    non-terminal task becomes `cancelled` before the answer, which is the task; a terminal one
//!    is `-32602`.
//! 7. **TTL** (M-15) counts from `createdAt`. 2026: a non-terminal task past its deadline becomes
//!    `failed` with [`TTL_EXPIRED_CODE`] / [`TTL_EXPIRED_MESSAGE`] (the spec leaves code and
//!    message open; rmcp's choice). 2025: the task is deleted whatever its status (spec: MAY
//!    delete). **Retention** (we choose): a terminal task is kept `retention_ms` after it turned
//!    terminal (the clock restarts at the terminal write, as the TypeScript and Python SDKs do,
//!    so a task that finishes near its deadline stays readable), then purged; `None` keeps it.
//!    Expiry is applied lazily to the task a call touches as well as by the sweep, so `get`,
//!    `cancel`, `update`, `result` and worker writes all agree whether or not the host swept in
//!    time; a task a call expired is still named by the next sweep, whose `failed` list is what
//!    stops its worker (and the next timeout is then due at once).
//! 8. **`lastUpdatedAt`** (M-16) moves on every observable change (status, inputRequests,
//!    statusMessage, payload), never backwards. Times are milliseconds; ISO strings are the codec's
//!    job.

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::WriteOutcome;
use crate::error::Error;
use crate::model::Model;
use crate::ownership::{task_access, Access};
use crate::snapshot::Snapshot;
use crate::status::Status;
use crate::view::{codes, InputRequest, RpcError, TaskView, ToolResult, Ttl};

/// The message of the `-32602` answer for an unknown, purged or foreign task id (identical in all
/// three cases, so nothing leaks).
pub const TASK_NOT_FOUND_MESSAGE: &str = "Failed to retrieve task: Task not found";

/// The JSON-RPC code of the error a 2026 task gets when its TTL elapses before it settles.
pub const TTL_EXPIRED_CODE: i64 = codes::INTERNAL_ERROR;

/// The message of that error (rmcp's wording).
pub const TTL_EXPIRED_MESSAGE: &str = "task expired: TTL elapsed before completion";

/// The JSON-RPC code we suggest for a 2025 `tasks/result` on a cancelled task (the spec leaves
/// it open; see [`ResultAnswer::Cancelled`]).
pub const CANCELLED_RESULT_CODE: i64 = codes::INTERNAL_ERROR;

/// The message that goes with [`CANCELLED_RESULT_CODE`].
pub const CANCELLED_RESULT_MESSAGE: &str = "task was cancelled before it produced a result";

/// How a 2026 `tasks/cancel` takes effect.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum CancelMode {
    /// Record the intent, drop pending input requests, ack; the worker settles the task (reading
    /// [`TaskRegistry::cancel_requested`]). The task may still end completed or failed.
    Cooperative,
    /// Settle the task `cancelled` at once (before the ack); later worker writes are ignored.
    Immediate,
}

crate::tagged::unit_enum!(
    CancelMode,
    "enum CancelMode",
    [
        (CancelMode::Cooperative, "cooperative"),
        (CancelMode::Immediate, "immediate"),
    ]
);

/// Configuration of a [`TaskRegistry`]. Build it, then hand it to [`TaskRegistry::new`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RegistryConfig {
    /// Default lifetime from creation (`ttlMs` / `ttl`); `None` is unlimited.
    pub ttl_ms: Option<u64>,
    /// Cap on a 2025 requested `ttl` (2026 clients cannot request one); `None`: no cap.
    pub max_ttl_ms: Option<u64>,
    /// The `pollIntervalMs` / `pollInterval` hint reported on every task.
    pub poll_interval_ms: Option<u64>,
    /// How long a terminal task stays readable after it turned terminal; `None` keeps it.
    pub retention_ms: Option<u64>,
    /// At most this many non-terminal tasks per principal; `None`: no limit.
    pub max_tasks_per_principal: Option<usize>,
    /// How a 2026 cancel takes effect.
    pub cancel: CancelMode,
    /// 2025 `tasks/list` page size (at least 1).
    pub page_size: usize,
}

impl Default for RegistryConfig {
    /// rmcp's defaults: TTL 300 000 ms, poll 1 000 ms; retention one more TTL window
    /// (300 000 ms) after the terminal write; cooperative cancel; pages of 50.
    fn default() -> Self {
        RegistryConfig {
            ttl_ms: Some(300_000),
            max_ttl_ms: None,
            poll_interval_ms: Some(1_000),
            retention_ms: Some(300_000),
            max_tasks_per_principal: None,
            cancel: CancelMode::Cooperative,
            page_size: 50,
        }
    }
}

/// The settled outcome of a task. Its kind decides the terminal status.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Payload {
    Result { result: ToolResult },
    Error { error: RpcError },
    Cancelled,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Settled {
    at: u64,
    payload: Payload,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Entry {
    principal: String,
    seq: u64,
    created_at: u64,
    last_updated_at: u64,
    ttl_ms: Option<u64>,
    poll_interval_ms: Option<u64>,
    status_message: Option<String>,
    pending: Vec<InputRequest>,
    used_keys: BTreeSet<String>,
    responses: Vec<(String, Value)>,
    cancel_requested: bool,
    settled: Option<Settled>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Due {
    Nothing,
    Fail,
    Purge,
}

impl Entry {
    fn status(&self, model: Model) -> Status {
        match &self.settled {
            Some(s) => match &s.payload {
                Payload::Result { result } if model == Model::Task2025 && result.is_error => {
                    Status::Failed
                }
                Payload::Result { .. } => Status::Completed,
                Payload::Error { .. } => Status::Failed,
                Payload::Cancelled => Status::Cancelled,
            },
            None if !self.pending.is_empty() => Status::InputRequired,
            None => Status::Working,
        }
    }

    fn touch(&mut self, now: u64) {
        self.last_updated_at = self.last_updated_at.max(now);
    }

    fn ttl_deadline(&self) -> Option<u64> {
        self.ttl_ms.map(|t| self.created_at.saturating_add(t))
    }

    fn retention_deadline(&self, retention_ms: Option<u64>) -> Option<u64> {
        match (&self.settled, retention_ms) {
            (Some(s), Some(r)) => Some(s.at.saturating_add(r)),
            _ => None,
        }
    }

    /// The next time this task has timer work, if any.
    fn deadline(&self, model: Model, retention_ms: Option<u64>) -> Option<u64> {
        let ttl = match model {
            Model::Task2025 => self.ttl_deadline(),
            _ if self.settled.is_none() => self.ttl_deadline(),
            _ => None,
        };
        match (ttl, self.retention_deadline(retention_ms)) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn due(&self, model: Model, retention_ms: Option<u64>, now: u64) -> Due {
        if self
            .retention_deadline(retention_ms)
            .is_some_and(|d| now >= d)
        {
            return Due::Purge;
        }
        match self.ttl_deadline() {
            Some(d) if now >= d => match model {
                Model::Task2025 => Due::Purge,
                _ if self.settled.is_none() => Due::Fail,
                _ => Due::Nothing,
            },
            _ => Due::Nothing,
        }
    }

    fn view(&self, model: Model, task_id: &str, detailed: bool) -> TaskView {
        let status = self.status(model);
        let mut view = TaskView {
            task_id: task_id.to_string(),
            status,
            status_message: self.status_message.clone(),
            created_at_ms: Some(self.created_at),
            last_updated_at_ms: Some(self.last_updated_at),
            ttl_ms: Ttl::stated(self.ttl_ms),
            poll_interval_ms: self.poll_interval_ms,
            input_requests: Vec::new(),
            result: None,
            error: None,
        };
        if detailed {
            match (status, self.settled.as_ref().map(|s| &s.payload)) {
                (Status::InputRequired, _) => view.input_requests = self.pending.clone(),
                (Status::Completed, Some(Payload::Result { result })) => {
                    view.result = Some(result.clone());
                }
                (Status::Failed, Some(Payload::Error { error })) => {
                    view.error = Some(error.clone())
                }
                _ => {}
            }
        }
        view
    }
}

/// A 2026 `tasks/cancel` or 2025 `tasks/cancel` answer (errors are the `Err` side).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[allow(clippy::large_enum_variant)] // one answer per request; boxing buys nothing here
#[non_exhaustive]
pub enum CancelReply {
    /// 2026: the empty ack `{resultType: "complete"}`. Not a promise.
    Ack,
    /// 2025: the task after cancellation (always `cancelled`).
    Task {
        /// The task.
        task: TaskView,
    },
}

impl CancelReply {
    /// The answer as [`crate::cancel::classify_answer`] reads it, for a reply or its error.
    #[must_use]
    pub fn cancel_answer(reply: &Result<CancelReply, RpcError>) -> crate::cancel::CancelAnswer {
        use crate::cancel::CancelAnswer;
        match reply {
            Ok(CancelReply::Ack) => CancelAnswer::Ack,
            // The registry stores task statuses only, so the second arm never runs; were a job
            // status to reach it, the answer would say nothing a cancel can be judged by.
            Ok(CancelReply::Task { task }) => match task.status.task() {
                Some(status) => CancelAnswer::Task { status },
                None => CancelAnswer::NoAnswer,
            },
            Err(e) => CancelAnswer::RpcError { code: e.code },
        }
    }
}

/// A 2025 `tasks/result` answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ResultAnswer {
    /// Terminal with a tool result: answer it as the successful JSON-RPC result (also when
    /// `isError: true`, which made the task `failed`).
    Result {
        /// The stored result.
        result: ToolResult,
    },
    /// Terminal with a JSON-RPC error: answer the request with this error.
    Error {
        /// The stored error.
        error: RpcError,
    },
    /// Cancelled: there is no result. The spec leaves the answer open; we suggest
    /// [`CANCELLED_RESULT_CODE`] with [`CANCELLED_RESULT_MESSAGE`] ([`ResultAnswer::rpc_error`]).
    Cancelled,
    /// Not terminal: the host holds the request and asks again when the task changes (after a
    /// worker write) or gives up at its own timeout. `input_requests` are the requests to
    /// deliver on the held stream.
    Blocked {
        /// The current status.
        status: Status,
        /// The outstanding input requests.
        input_requests: Vec<InputRequest>,
    },
}

impl ResultAnswer {
    /// The error to answer with, for the `Error` and `Cancelled` variants.
    #[must_use]
    pub fn rpc_error(&self) -> Option<RpcError> {
        match self {
            ResultAnswer::Error { error } => Some(error.clone()),
            ResultAnswer::Cancelled => Some(RpcError {
                code: CANCELLED_RESULT_CODE,
                message: CANCELLED_RESULT_MESSAGE.into(),
                data: None,
            }),
            _ => None,
        }
    }
}

/// A `tasks/update` answer: the wire ack is empty; the key lists are for the host and tests.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UpdateAck {
    /// Keys that were outstanding and are now answered.
    pub accepted: Vec<String>,
    /// Keys that were not outstanding (never issued, already answered, cancelled): ignored.
    pub ignored: Vec<String>,
}

/// One 2025 `tasks/list` page.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TaskPage {
    /// The caller's tasks, in creation order.
    pub tasks: Vec<TaskView>,
    /// The cursor of the next page, when there is one.
    pub next_cursor: Option<String>,
}

/// What [`TaskRegistry::handle_timeout`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sweep {
    /// 2026 tasks that turned `failed` because their TTL elapsed: stop their workers.
    pub failed: Vec<String>,
    /// Tasks deleted (2025 TTL, or retention after terminal): stop any worker still running.
    pub purged: Vec<String>,
}

/// The reference MCP task server state for one revision.
///
/// ```
/// use longcall::server::{RegistryConfig, TaskRegistry};
/// use longcall::view::ToolResult;
/// use longcall::{Model, Status};
///
/// let mut reg = TaskRegistry::new(Model::Task2026, RegistryConfig::default()).unwrap();
/// reg.create(0, "alice", "t1", None).unwrap();
/// assert_eq!(reg.get(1, "alice", "t1").unwrap().status, Status::Working);
/// assert_eq!(reg.get(1, "bob", "t1").unwrap_err().code, -32602); // not yours = unknown
/// let done = ToolResult { is_error: true, value: serde_json::json!({"isError": true}).into() };
/// assert!(reg.complete(2, "t1", done).is_applied());
/// assert_eq!(reg.get(3, "alice", "t1").unwrap().status, Status::Completed); // 2026: isError stays completed
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TaskRegistry {
    model: Model,
    config: RegistryConfig,
    next_seq: u64,
    tasks: BTreeMap<String, Entry>,
    /// Tasks a lookup failed by their TTL, in that order, for the next sweep to name: their
    /// workers still run until the host hears of them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    unswept: Vec<String>,
}

impl Snapshot for TaskRegistry {
    const KIND: &'static str = "task_registry";
}

fn not_found() -> RpcError {
    RpcError {
        code: codes::INVALID_PARAMS,
        message: TASK_NOT_FOUND_MESSAGE.into(),
        data: None,
    }
}

fn method_not_found(method: &str) -> RpcError {
    RpcError {
        code: codes::METHOD_NOT_FOUND,
        message: format!("Method not found: {method}"),
        data: None,
    }
}

impl TaskRegistry {
    /// A new, empty registry. Call once at server start (or [`crate::snapshot::restore`] one).
    ///
    /// Errors: [`Error::WrongModel`] for [`Model::Job`]; [`Error::InvalidConfig`] for a page size
    /// of 0.
    pub fn new(model: Model, config: RegistryConfig) -> Result<TaskRegistry, Error> {
        if !model.is_task() {
            return Err(Error::WrongModel {
                expected: Model::Task2026,
                got: model,
            });
        }
        if config.page_size == 0 {
            return Err(Error::invalid_config("page_size", "must be at least 1"));
        }
        Ok(TaskRegistry {
            model,
            config,
            next_seq: 0,
            tasks: BTreeMap::new(),
            unswept: Vec::new(),
        })
    }

    /// The revision this registry serves.
    #[must_use]
    pub const fn model(&self) -> Model {
        self.model
    }

    /// The configuration in force.
    #[must_use]
    pub const fn config(&self) -> &RegistryConfig {
        &self.config
    }

    /// Replaces the configuration, for tasks created from now on (S-9): a server restored from
    /// a snapshot takes the configuration it starts with, not the one the snapshot holds. Tasks
    /// already stored keep their TTL and interval.
    ///
    /// Errors: [`Error::InvalidConfig`] for a page size of 0, the registry unchanged.
    pub fn set_config(&mut self, config: RegistryConfig) -> Result<(), Error> {
        if config.page_size == 0 {
            return Err(Error::invalid_config("page_size", "must be at least 1"));
        }
        self.config = config;
        Ok(())
    }

    /// The ids of the tasks not settled yet (`working` or `input_required`), in id order.
    ///
    /// After restoring a snapshot at server start, these are the tasks whose work ended with
    /// the old process (S-9): start it again, or [`TaskRegistry::fail`] them, so that none stays
    /// `working` until its TTL while a client polls, and no cancel waits on a worker that is gone.
    ///
    /// ```
    /// use longcall::server::{RegistryConfig, TaskRegistry};
    /// use longcall::Model;
    ///
    /// let mut reg = TaskRegistry::new(Model::Task2026, RegistryConfig::default())?;
    /// reg.create(0, "alice", "t1", None)?;
    /// reg.create(0, "alice", "t2", None)?;
    /// reg.fail(5, "t2", longcall::view::RpcError { code: -32603, message: "out of paint".into(), data: None });
    /// let text = longcall::snapshot::save(&reg)?;
    /// // A new process: what was running is named, to resume or to fail.
    /// let back: TaskRegistry = longcall::snapshot::restore(&text)?;
    /// assert_eq!(back.unsettled().collect::<Vec<_>>(), ["t1"]);
    /// # Ok::<(), longcall::Error>(())
    /// ```
    pub fn unsettled(&self) -> impl Iterator<Item = &str> + '_ {
        self.tasks
            .iter()
            .filter(|(_, e)| e.settled.is_none())
            .map(|(id, _)| id.as_str())
    }

    /// How many tasks are stored (including terminal ones not yet purged).
    #[must_use]
    pub fn len(&self) -> usize {
        self.tasks.len()
    }

    /// True when no task is stored.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.tasks.is_empty()
    }

    // ---- lookups and timers -------------------------------------------------------------------

    /// Applies whatever timer work is due for `id`; returns what it did.
    fn apply_due(&mut self, now: u64, id: &str) -> Due {
        let (model, retention) = (self.model, self.config.retention_ms);
        let Some(entry) = self.tasks.get_mut(id) else {
            return Due::Nothing;
        };
        match entry.due(model, retention, now) {
            Due::Nothing => Due::Nothing,
            Due::Purge => {
                self.tasks.remove(id);
                // Named as purged now, which stops its worker too.
                self.unswept.retain(|u| u != id);
                Due::Purge
            }
            Due::Fail => {
                entry.settled = Some(Settled {
                    at: now,
                    payload: Payload::Error {
                        error: RpcError {
                            code: TTL_EXPIRED_CODE,
                            message: TTL_EXPIRED_MESSAGE.into(),
                            data: None,
                        },
                    },
                });
                entry.pending.clear();
                entry.touch(now);
                // A zero retention purges at once.
                if entry.due(model, retention, now) == Due::Purge {
                    self.tasks.remove(id);
                    return Due::Purge;
                }
                self.unswept.push(id.into());
                Due::Fail
            }
        }
    }

    /// Worker-side lookup: applies due timers first.
    fn live(&mut self, now: u64, id: &str) -> Option<&mut Entry> {
        self.apply_due(now, id);
        self.tasks.get_mut(id)
    }

    /// Client-side lookup: another principal's task is not found, and nothing changes for it.
    fn owned(&mut self, now: u64, principal: &str, id: &str) -> Result<&mut Entry, RpcError> {
        match self.tasks.get(id) {
            Some(e) if task_access(&e.principal, principal) == Access::Owner => {}
            _ => return Err(not_found()),
        }
        self.live(now, id).ok_or_else(not_found)
    }

    /// Runs TTL expiry and retention for every task. Call it when `now` reaches
    /// [`TaskRegistry::poll_timeout`] (calling it earlier or more often is harmless).
    pub fn handle_timeout(&mut self, now: u64) -> Sweep {
        let mut sweep = Sweep::default();
        let ids: Vec<String> = self.tasks.keys().cloned().collect();
        for id in ids {
            // A task failed here joins `unswept`, after those a lookup failed before.
            if self.apply_due(now, &id) == Due::Purge {
                sweep.purged.push(id);
            }
        }
        sweep.failed = core::mem::take(&mut self.unswept);
        sweep
    }

    /// The next absolute time at which [`TaskRegistry::handle_timeout`] has work; `None` when no
    /// task has a deadline. Ask again after every call that changes the registry.
    #[must_use]
    pub fn poll_timeout(&self) -> Option<u64> {
        // A task a lookup failed is due at the time it failed: the sweep that names it is late.
        let unswept = self
            .unswept
            .iter()
            .filter_map(|id| self.tasks.get(id)?.settled.as_ref().map(|s| s.at));
        self.tasks
            .values()
            .filter_map(|e| e.deadline(self.model, self.config.retention_ms))
            .chain(unswept)
            .min()
    }

    // ---- creation -----------------------------------------------------------------------------

    /// Creates a task for `principal`. Call it when a `tools/call` is answered with a task, and
    /// answer the client only after this returns (creation is strongly consistent: `get`
    /// resolves at once). Returns the plain task (the `CreateTaskResult` body).
    ///
    /// The host supplies the unguessable `task_id`, and `principal`, the caller's identity (an
    /// account id, or a digest of a credential: it is kept in memory and in snapshots as given,
    /// so never a raw token). `requested_ttl_ms` is the 2025 `task.ttl`
    /// (capped by `max_ttl_ms`); 2026 ignores it (servers MUST ignore the legacy param).
    /// Every task starts `working`. A 2026 server that wants another seed status applies the
    /// worker writes (`request_input`, `complete`, ...) at the same `now` before answering and
    /// answers with [`TaskRegistry::peek`]; a 2025 server MUST answer `working`.
    ///
    /// Errors: [`Error::InvalidInput`] for an empty id or principal, [`Error::Duplicate`] for an
    /// id in use, [`Error::LimitReached`] when the principal already has
    /// `max_tasks_per_principal` non-terminal tasks.
    pub fn create(
        &mut self,
        now: u64,
        principal: &str,
        task_id: &str,
        requested_ttl_ms: Option<u64>,
    ) -> Result<TaskView, Error> {
        if task_id.is_empty() {
            return Err(Error::invalid_input("task_id", "must not be empty"));
        }
        if principal.is_empty() {
            return Err(Error::invalid_input("principal", "must not be empty"));
        }
        self.apply_due(now, task_id);
        if self.tasks.contains_key(task_id) {
            return Err(Error::Duplicate {
                what: "task id",
                id: task_id.into(),
            });
        }
        if let Some(limit) = self.config.max_tasks_per_principal {
            let live = self
                .tasks
                .values()
                .filter(|e| {
                    e.principal == principal
                        && e.settled.is_none()
                        && e.due(self.model, self.config.retention_ms, now) == Due::Nothing
                })
                .count();
            if live >= limit {
                return Err(Error::LimitReached {
                    what: "max_tasks_per_principal",
                    limit,
                });
            }
        }
        let requested = match self.model {
            Model::Task2025 => requested_ttl_ms.or(self.config.ttl_ms),
            _ => self.config.ttl_ms,
        };
        let ttl_ms = match (requested, self.config.max_ttl_ms) {
            (Some(t), Some(cap)) => Some(t.min(cap)),
            (None, Some(cap)) => Some(cap),
            (t, None) => t,
        };
        let entry = Entry {
            principal: principal.into(),
            seq: self.next_seq,
            created_at: now,
            last_updated_at: now,
            ttl_ms,
            poll_interval_ms: self.config.poll_interval_ms,
            status_message: None,
            pending: Vec::new(),
            used_keys: BTreeSet::new(),
            responses: Vec::new(),
            cancel_requested: false,
            settled: None,
        };
        self.next_seq = self.next_seq.saturating_add(1);
        let view = entry.view(self.model, task_id, false);
        self.tasks.insert(task_id.into(), entry);
        Ok(view)
    }

    // ---- worker side --------------------------------------------------------------------------

    /// Worker: the detailed view of a task as stored, without a principal check and without
    /// applying timers. Use it to build a seeded `CreateTaskResult` or a notification.
    #[must_use]
    pub fn peek(&self, task_id: &str) -> Option<TaskView> {
        self.tasks
            .get(task_id)
            .map(|e| e.view(self.model, task_id, self.model == Model::Task2026))
    }

    /// Worker: whether a client asked to cancel this task. Poll it in a cooperative worker and
    /// call [`TaskRegistry::settle_cancelled`] when the work stopped.
    #[must_use]
    pub fn cancel_requested(&self, task_id: &str) -> bool {
        self.tasks.get(task_id).is_some_and(|e| e.cancel_requested)
    }

    /// Worker: asks the client for input under `key` (the task reads `input_required` until
    /// every pending key is answered). Call it when the tool needs an elicitation, sampling or
    /// roots answer.
    ///
    /// Errors: [`Error::Duplicate`] when `key` was ever used on this task (keys are unique over
    /// the task's life), [`Error::InvalidInput`] for an empty key or a request without a string
    /// `method` (the client could not answer it). Ignored (not an error): a
    /// terminal task, a task with a cancel request, an unknown id.
    pub fn request_input(
        &mut self,
        now: u64,
        task_id: &str,
        key: &str,
        request: Value,
    ) -> Result<WriteOutcome, Error> {
        if key.is_empty() {
            return Err(Error::invalid_input("key", "must not be empty"));
        }
        // The client can answer only a request it can read, as in an MRTR round (E-56).
        if request.get("method").and_then(Value::as_str).is_none() {
            return Err(Error::invalid_input(
                "request",
                "an input request is an object with a string method (elicitation/create, ...)",
            ));
        }
        let model = self.model;
        let Some(e) = self.live(now, task_id) else {
            return Ok(WriteOutcome::UnknownId);
        };
        if e.used_keys.contains(key) {
            return Err(Error::Duplicate {
                what: "input key",
                id: key.into(),
            });
        }
        if e.settled.is_some() {
            return Ok(WriteOutcome::IgnoredTerminal {
                status: e.status(model),
            });
        }
        if e.cancel_requested {
            return Ok(WriteOutcome::IgnoredCancelRequested);
        }
        e.used_keys.insert(key.into());
        e.pending.push(InputRequest {
            key: key.into(),
            request: request.into(),
        });
        e.touch(now);
        Ok(WriteOutcome::Applied)
    }

    /// Worker: the input responses answered since the last call, in answer order (drained).
    /// Call it after an update reached the task (or whenever the worker resumes).
    pub fn take_input_responses(&mut self, task_id: &str) -> Vec<(String, Value)> {
        self.tasks
            .get_mut(task_id)
            .map(|e| core::mem::take(&mut e.responses))
            .unwrap_or_default()
    }

    /// Worker: sets or clears `statusMessage`. Ignored once terminal.
    pub fn set_status_message(
        &mut self,
        now: u64,
        task_id: &str,
        message: Option<String>,
    ) -> WriteOutcome {
        let model = self.model;
        let Some(e) = self.live(now, task_id) else {
            return WriteOutcome::UnknownId;
        };
        if e.settled.is_some() {
            return WriteOutcome::IgnoredTerminal {
                status: e.status(model),
            };
        }
        if e.status_message != message {
            e.status_message = message;
            e.touch(now);
        }
        WriteOutcome::Applied
    }

    fn settle(&mut self, now: u64, task_id: &str, payload: Payload) -> WriteOutcome {
        let model = self.model;
        let Some(e) = self.live(now, task_id) else {
            return WriteOutcome::UnknownId;
        };
        if e.settled.is_some() {
            return WriteOutcome::IgnoredTerminal {
                status: e.status(model),
            };
        }
        e.settled = Some(Settled { at: now, payload });
        e.pending.clear();
        e.touch(now);
        WriteOutcome::Applied
    }

    /// Worker: the tool produced a result. 2026: `completed` even with `isError: true`;
    /// 2025: `isError: true` makes the task `failed`. First terminal write wins.
    ///
    /// The flag and the result a client reads never disagree: a result is an error when either
    /// says so, and its object then carries `isError: true`.
    pub fn complete(&mut self, now: u64, task_id: &str, result: ToolResult) -> WriteOutcome {
        let value = result.value.as_value();
        let said = matches!(value.get("isError"), Some(Value::Bool(true)));
        let result = match (result.is_error, value) {
            (true, Value::Object(m)) if !said => {
                let mut m = m.clone();
                m.insert("isError".into(), Value::Bool(true));
                ToolResult {
                    is_error: true,
                    value: Value::Object(m).into(),
                }
            }
            _ => ToolResult {
                is_error: result.is_error || said,
                ..result
            },
        };
        self.settle(now, task_id, Payload::Result { result })
    }

    /// Worker: execution hit a JSON-RPC error; the task becomes `failed` with it. First
    /// terminal write wins.
    pub fn fail(&mut self, now: u64, task_id: &str, error: RpcError) -> WriteOutcome {
        self.settle(now, task_id, Payload::Error { error })
    }

    /// Worker: the work stopped after a cancel request; the task becomes `cancelled`. First
    /// terminal write wins.
    pub fn settle_cancelled(&mut self, now: u64, task_id: &str) -> WriteOutcome {
        self.settle(now, task_id, Payload::Cancelled)
    }

    // ---- client side --------------------------------------------------------------------------

    /// `tasks/get`: the task as the caller may see it. 2026: the `DetailedTask` (inputRequests /
    /// result / error by status); 2025: the plain task. A pure read apart from due timers.
    ///
    /// Errors: `-32602` for an unknown, purged or foreign id.
    pub fn get(&mut self, now: u64, principal: &str, task_id: &str) -> Result<TaskView, RpcError> {
        let model = self.model;
        let e = self.owned(now, principal, task_id)?;
        Ok(e.view(model, task_id, model == Model::Task2026))
    }

    /// 2025 `tasks/result`: the stored result or error of a terminal task, or
    /// [`ResultAnswer::Blocked`] for the host to hold the request (this never blocks).
    ///
    /// Errors: 2026 `-32601` (the method is gone); `-32602` for an unknown, purged or foreign
    /// id.
    pub fn result(
        &mut self,
        now: u64,
        principal: &str,
        task_id: &str,
    ) -> Result<ResultAnswer, RpcError> {
        let model = self.model;
        if model == Model::Task2026 {
            return Err(method_not_found("tasks/result"));
        }
        let e = self.owned(now, principal, task_id)?;
        Ok(match &e.settled {
            Some(s) => match &s.payload {
                Payload::Result { result } => ResultAnswer::Result {
                    result: result.clone(),
                },
                Payload::Error { error } => ResultAnswer::Error {
                    error: error.clone(),
                },
                Payload::Cancelled => ResultAnswer::Cancelled,
            },
            None => ResultAnswer::Blocked {
                status: e.status(model),
                input_requests: e.pending.clone(),
            },
        })
    }

    /// `tasks/update`: answers outstanding input requests. Answered keys leave `inputRequests`
    /// and wait for [`TaskRegistry::take_input_responses`]; keys not outstanding are ignored; a
    /// partial answer keeps `input_required`. Any task state gets the ack. (2025 has no
    /// `tasks/update`; a 2025 host routes the client's answers to delivered requests here.)
    ///
    /// Errors: `-32602` for an unknown, purged or foreign id.
    pub fn update(
        &mut self,
        now: u64,
        principal: &str,
        task_id: &str,
        responses: Vec<(String, Value)>,
    ) -> Result<UpdateAck, RpcError> {
        let e = self.owned(now, principal, task_id)?;
        let mut ack = UpdateAck::default();
        for (key, value) in responses {
            match e.pending.iter().position(|r| r.key == key) {
                Some(i) if e.settled.is_none() => {
                    e.pending.remove(i);
                    e.responses.push((key.clone(), value));
                    ack.accepted.push(key);
                }
                _ => ack.ignored.push(key),
            }
        }
        if !ack.accepted.is_empty() {
            e.touch(now);
        }
        Ok(ack)
    }

    /// `tasks/cancel`. 2026: [`CancelReply::Ack`] for every known id (idempotent on terminal);
    /// records the intent and drops pending input requests; settles at once under
    /// [`CancelMode::Immediate`]. 2025: a non-terminal task becomes `cancelled` before the
    /// answer, which is [`CancelReply::Task`].
    ///
    /// Errors: `-32602` for an unknown, purged or foreign id; 2025 also for a terminal task
    /// ("Cannot cancel task: already in terminal status '…'").
    pub fn cancel(
        &mut self,
        now: u64,
        principal: &str,
        task_id: &str,
    ) -> Result<CancelReply, RpcError> {
        let model = self.model;
        let immediate = self.config.cancel == CancelMode::Immediate;
        let e = self.owned(now, principal, task_id)?;
        if e.settled.is_some() {
            return match model {
                Model::Task2025 => Err(RpcError {
                    code: codes::INVALID_PARAMS,
                    message: format!(
                        "Cannot cancel task: already in terminal status '{}'",
                        e.status(model)
                    ),
                    data: None,
                }),
                _ => Ok(CancelReply::Ack),
            };
        }
        let changed = !e.cancel_requested || !e.pending.is_empty();
        e.cancel_requested = true;
        e.pending.clear();
        if model == Model::Task2025 || immediate {
            e.settled = Some(Settled {
                at: now,
                payload: Payload::Cancelled,
            });
            e.touch(now);
        } else if changed {
            e.touch(now);
        }
        Ok(match model {
            Model::Task2025 => CancelReply::Task {
                task: e.view(model, task_id, false),
            },
            _ => CancelReply::Ack,
        })
    }

    /// 2025 `tasks/list`: the caller's tasks in creation order, `page_size` at a time. Cursors
    /// are stable: tasks created later appear on later pages, deleted ones simply vanish.
    ///
    /// Errors: 2026 `-32601` (the method is gone); `-32602` for a cursor this registry did not
    /// issue.
    pub fn list(
        &mut self,
        now: u64,
        principal: &str,
        cursor: Option<&str>,
    ) -> Result<TaskPage, RpcError> {
        if self.model == Model::Task2026 {
            return Err(method_not_found("tasks/list"));
        }
        let after = match cursor {
            None => None,
            Some(c) => match c.parse::<u64>() {
                Ok(seq) if seq < self.next_seq && c == seq.to_string() => Some(seq),
                _ => {
                    return Err(RpcError {
                        code: codes::INVALID_PARAMS,
                        message: "Invalid cursor".into(),
                        data: None,
                    })
                }
            },
        };
        let mine: Vec<String> = self
            .tasks
            .iter()
            .filter(|(_, e)| e.principal == principal)
            .map(|(id, _)| id.clone())
            .collect();
        for id in &mine {
            self.apply_due(now, id);
        }
        let mut rows: Vec<(u64, &String, &Entry)> = self
            .tasks
            .iter()
            .filter(|(_, e)| e.principal == principal && after.is_none_or(|a| e.seq > a))
            .map(|(id, e)| (e.seq, id, e))
            .collect();
        rows.sort_by_key(|(seq, _, _)| *seq);
        let more = rows.len() > self.config.page_size;
        rows.truncate(self.config.page_size);
        let next_cursor = if more {
            rows.last().map(|(seq, _, _)| seq.to_string())
        } else {
            None
        };
        Ok(TaskPage {
            tasks: rows
                .iter()
                .map(|(_, id, e)| e.view(self.model, id, false))
                .collect(),
            next_cursor,
        })
    }
}
