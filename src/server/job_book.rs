//! The reference Sume job server: a book of paid jobs.
//!
//! Rules (`docs/rules.md`), written once:
//!
//! 1. **Ownership** (W-1, W-3). A job belongs to its (workspace, member). Anyone else, even a
//!    member of the same workspace, gets exactly what an unknown id gets: `404 not_found` from
//!    `get` and `cancel`, a `not_found` entry from `wait`; `list` shows only the caller's jobs.
//! 2. **Queue-first admission** (A-1, A-2, A-8). A valid submit is accepted `queued` (a normal
//!    state, not an error). [`JobBook::dispatch`] moves queued jobs FIFO (submission order, per
//!    workspace) to `processing` while the workspace has fewer than `concurrency_per_workspace`
//!    processing jobs. Checks, in this order (we choose: the permanent answer first):
//!    invalid input `400 invalid_request`; an idempotency key already used by this member
//!    replays the **original** job (same id, current status, whatever the new `job_id`, no
//!    admission check); `402 insufficient_credits` when the workspace has a credit balance below
//!    `cost_per_job` (no job is created); `429 queue_full` when the workspace already has
//!    `queue_limit_per_workspace` queued jobs (details: `queued`, `queue_limit`,
//!    `concurrency_limit`). 429 because the condition is transient and per workspace: retry with
//!    the same idempotency key once capacity opens.
//! 3. **Credits** (A-9; optional, per workspace; a workspace without a balance is unlimited): a
//!    submit reserves `cost_per_job`; `canceled`, `failed` and `expired` refund the reservation;
//!    `completed` bills it.
//! 4. **The cancel window is `queued` only** (C-1, C-7, C-8, C-9, J-5) ([`CANCEL_TABLE`]): queued →
//!    `canceled` (200 with the job); canceled → the same canceled job (idempotent 200);
//!    processing/running → 409 `job_generation_already_started` with `details.cancelable: false`
//!    (the job keeps running, completes and bills); completed/failed/expired → 409
//!    `job_not_cancelable`. Never processing → canceled. A cancel `idempotency_key` (per member)
//!    replays the original cancel answer; the same key for another job id is `422
//!    idempotency_key_mismatch`.
//! 5. **Worker writes** (L-4, L-6) follow [`crate::lifecycle::JOB_TABLE`]: `complete` needs
//!    `processing`, `fail` and `expire` work from `queued` or `processing`; the first terminal
//!    write wins and later ones are [`WriteOutcome::IgnoredTerminal`].
//! 6. **`jobs_wait`** (B-10, B-4) is a pure snapshot: 1 to [`MAX_WAIT_IDS`] distinct ids (else `400
//!    invalid_request`), `satisfied` by `all` or `any` entries being settled. An entry is settled
//!    when its job is terminal or it is `not_found` (nothing more will happen to it). Results
//!    only with `include_results` and only for completed jobs; error bodies always. The host
//!    holds the request until satisfied or its own timeout; a timeout answer is the same
//!    partial snapshot, not an error.
//! 7. (J-6) A duplicate `job_id` from the host (its id generator collided) is `500 internal_error`:
//!    the client did nothing wrong, and nothing about the existing job leaks.

use alloc::collections::BTreeMap;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::WriteOutcome;
use crate::error::Error;
use crate::lifecycle::{transition, Transition};
use crate::model::Model;
use crate::ownership::{job_access, Access, Owner};
use crate::snapshot::Snapshot;
use crate::status::Status;
use crate::view::{ApiError, JobView};
use crate::Json;

pub use crate::job_vocab::{WaitFor, MAX_WAIT_IDS};

/// What `jobs_cancel` does for a job the caller owns, by status.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CancelRule {
    /// Move to `canceled`, answer 200 with the job.
    Cancel,
    /// Already canceled: answer 200 with the same job (idempotent).
    Replay,
    /// 409 `job_generation_already_started`, `details.cancelable: false`; the job keeps running.
    Started,
    /// 409 `job_not_cancelable`: nothing to cancel.
    NotCancelable,
}

crate::tagged::unit_enum!(
    CancelRule,
    "enum CancelRule",
    [
        (CancelRule::Cancel, "cancel"),
        (CancelRule::Replay, "replay"),
        (CancelRule::Started, "started"),
        (CancelRule::NotCancelable, "not_cancelable"),
    ]
);

/// The cancel table: one row per job status.
pub const CANCEL_TABLE: &[(Status, CancelRule)] = &[
    (Status::Queued, CancelRule::Cancel),
    (Status::Processing, CancelRule::Started),
    (Status::Running, CancelRule::Started),
    (Status::Canceled, CancelRule::Replay),
    (Status::Completed, CancelRule::NotCancelable),
    (Status::Failed, CancelRule::NotCancelable),
    (Status::Expired, CancelRule::NotCancelable),
];

fn cancel_rule(status: Status) -> CancelRule {
    CANCEL_TABLE
        .iter()
        .find(|(s, _)| *s == status)
        .map_or(CancelRule::NotCancelable, |(_, r)| *r)
}

/// One entry of a `jobs_wait` answer, in the order the ids were asked.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum WaitEntry {
    /// A job of the caller.
    Job {
        /// Its current state.
        job: JobView,
    },
    /// Unknown, or another member's: indistinguishable.
    NotFound {
        /// The id as asked.
        id: String,
    },
}

/// What the server holds for a `jobs_wait`: a snapshot of every asked job and whether the wait
/// is satisfied (the client reads the answer it sends as [`crate::wire::sume::WaitAnswer`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WaitSnapshot {
    /// One entry per asked id, in the asked order.
    pub jobs: Vec<WaitEntry>,
    /// True when `wait_for` is met: answer now. False: hold the request and ask again after a
    /// change, or answer this snapshot at the host's timeout.
    pub satisfied: bool,
}

/// Configuration of a [`JobBook`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobBookConfig {
    /// Processing jobs per workspace at most (at least 1).
    pub concurrency_per_workspace: usize,
    /// Queued jobs per workspace at most; a submit beyond it is `429 queue_full` (at least 1).
    pub queue_limit_per_workspace: usize,
    /// Credits reserved by each submit in a workspace that has a balance.
    pub cost_per_job: u64,
}

impl Default for JobBookConfig {
    /// 2 processing and 20 queued jobs per workspace; one credit per job.
    fn default() -> Self {
        JobBookConfig {
            concurrency_per_workspace: 2,
            queue_limit_per_workspace: 20,
            cost_per_job: 1,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Job {
    owner: Owner,
    seq: u64,
    status: Status,
    submitted_at: u64,
    updated_at: u64,
    result: Option<Json>,
    error: Option<Json>,
    reserved: u64,
}

impl Job {
    fn view(&self, id: &str, with_result: bool) -> JobView {
        JobView {
            id: id.into(),
            status: self.status,
            result: if with_result && self.status == Status::Completed {
                self.result.clone()
            } else {
                None
            },
            error: self.error.clone(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct CancelRecord {
    job_id: String,
    answer: Result<JobView, ApiError>,
}

/// The reference Sume job server state.
///
/// ```
/// use longcall::ownership::Owner;
/// use longcall::server::{JobBook, JobBookConfig};
/// use longcall::Status;
///
/// let alice = Owner { workspace: "w".into(), member: "alice".into() };
/// let bob = Owner { workspace: "w".into(), member: "bob".into() };
/// let mut book = JobBook::new(JobBookConfig::default()).unwrap();
/// assert_eq!(book.submit(0, &alice, "j1", Some("k1")).unwrap().status, Status::Queued);
/// assert_eq!(book.get(&bob, "j1").unwrap_err().http_status, 404); // not yours = unknown
/// book.dispatch(1);
/// let e = book.cancel(2, &alice, "j1", None).unwrap_err();
/// assert_eq!((e.http_status, e.code.as_str()), (409, "job_generation_already_started"));
/// // The same idempotency key replays the original job, never a new one.
/// assert_eq!(book.submit(3, &alice, "j2", Some("k1")).unwrap().id, "j1");
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JobBook {
    config: JobBookConfig,
    next_seq: u64,
    jobs: BTreeMap<String, Job>,
    #[serde(with = "super::pairs")]
    submit_keys: BTreeMap<(Owner, String), String>,
    #[serde(with = "super::pairs")]
    cancel_keys: BTreeMap<(Owner, String), CancelRecord>,
    credits: BTreeMap<String, u64>,
}

impl Snapshot for JobBook {
    const KIND: &'static str = "job_book";
}

fn api_error(http_status: u16, code: &str, message: &str, details: Option<Value>) -> ApiError {
    ApiError {
        http_status,
        code: code.into(),
        message: message.into(),
        details: details.map(Json::from),
        request_id: None,
    }
}

fn not_found() -> ApiError {
    api_error(404, "not_found", "job not found", None)
}

fn invalid_request(field: &str, reason: &str) -> ApiError {
    api_error(
        400,
        "invalid_request",
        "invalid request",
        Some(json!({"field": field, "reason": reason})),
    )
}

impl JobBook {
    /// A new, empty book. Call once at server start (or [`crate::snapshot::restore`] one).
    ///
    /// Errors: [`Error::InvalidConfig`] for a concurrency or queue limit of 0.
    pub fn new(config: JobBookConfig) -> Result<JobBook, Error> {
        if config.concurrency_per_workspace == 0 {
            return Err(Error::invalid_config(
                "concurrency_per_workspace",
                "must be at least 1",
            ));
        }
        if config.queue_limit_per_workspace == 0 {
            return Err(Error::invalid_config(
                "queue_limit_per_workspace",
                "must be at least 1 (admission is queue-first)",
            ));
        }
        Ok(JobBook {
            config,
            next_seq: 0,
            jobs: BTreeMap::new(),
            submit_keys: BTreeMap::new(),
            cancel_keys: BTreeMap::new(),
            credits: BTreeMap::new(),
        })
    }

    /// The configuration in force.
    #[must_use]
    pub const fn config(&self) -> &JobBookConfig {
        &self.config
    }

    /// How many jobs the book holds (jobs are never purged).
    #[must_use]
    pub fn len(&self) -> usize {
        self.jobs.len()
    }

    /// True when the book holds no job.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.jobs.is_empty()
    }

    /// Sets a workspace's available credit balance (`None`: unlimited, no credit checks). Call
    /// it when the host's billing changes.
    pub fn set_credits(&mut self, workspace: &str, balance: Option<u64>) {
        match balance {
            Some(b) => {
                self.credits.insert(workspace.into(), b);
            }
            None => {
                self.credits.remove(workspace);
            }
        }
    }

    /// A workspace's available credit balance (`None`: unlimited).
    #[must_use]
    pub fn credits(&self, workspace: &str) -> Option<u64> {
        self.credits.get(workspace).copied()
    }

    /// Worker/test: the full view of a job and its owner, without an ownership check.
    #[must_use]
    pub fn peek(&self, job_id: &str) -> Option<(Owner, JobView)> {
        self.jobs
            .get(job_id)
            .map(|j| (j.owner.clone(), j.view(job_id, true)))
    }

    /// How many jobs of `workspace` are in `status`.
    #[must_use]
    pub fn count(&self, workspace: &str, status: Status) -> usize {
        self.jobs
            .values()
            .filter(|j| j.owner.workspace == workspace && j.status.phase() == status.phase())
            .count()
    }

    fn owned(&self, owner: &Owner, job_id: &str) -> Option<&Job> {
        self.jobs
            .get(job_id)
            .filter(|j| job_access(&j.owner, owner) == Access::Owner)
    }

    /// `jobs_submit` (a generation request): admits a job queue-first. Call
    /// [`JobBook::dispatch`] afterwards. See the module rules for the order of checks.
    ///
    /// Answers: the job (`queued`, or the original job's current state on an idempotent
    /// replay); `400 invalid_request`; `402 insufficient_credits`; `429 queue_full`;
    /// `500 internal_error` for a host-side duplicate `job_id`.
    pub fn submit(
        &mut self,
        now: u64,
        owner: &Owner,
        job_id: &str,
        idempotency_key: Option<&str>,
    ) -> Result<JobView, ApiError> {
        if owner.workspace.is_empty() || owner.member.is_empty() {
            return Err(invalid_request(
                "owner",
                "workspace and member are required",
            ));
        }
        if idempotency_key == Some("") {
            return Err(invalid_request("idempotency_key", "must not be empty"));
        }
        if let Some(key) = idempotency_key {
            let original = self
                .submit_keys
                .get(&(owner.clone(), key.to_string()))
                .and_then(|id| self.jobs.get(id).map(|j| j.view(id, true)));
            if let Some(view) = original {
                return Ok(view);
            }
        }
        if job_id.is_empty() {
            return Err(invalid_request("job_id", "must not be empty"));
        }
        if self.jobs.contains_key(job_id) {
            return Err(api_error(
                500,
                "internal_error",
                "the server could not allocate a job id",
                None,
            ));
        }
        let cost = self.config.cost_per_job;
        if let Some(&available) = self.credits.get(&owner.workspace) {
            if available < cost {
                return Err(api_error(
                    402,
                    "insufficient_credits",
                    "not enough credits for this job",
                    Some(json!({"required": cost, "available": available})),
                ));
            }
        }
        let queued = self.count(&owner.workspace, Status::Queued);
        if queued >= self.config.queue_limit_per_workspace {
            return Err(api_error(
                429,
                "queue_full",
                "the workspace queue is full: cancel queued jobs you no longer need, or retry \
                 with the same idempotency key later",
                Some(json!({
                    "queued": queued,
                    "queue_limit": self.config.queue_limit_per_workspace,
                    "concurrency_limit": self.config.concurrency_per_workspace,
                })),
            ));
        }
        let reserved = match self.credits.get_mut(&owner.workspace) {
            Some(balance) => {
                *balance = balance.saturating_sub(cost);
                cost
            }
            None => 0,
        };
        let job = Job {
            owner: owner.clone(),
            seq: self.next_seq,
            status: Status::Queued,
            submitted_at: now,
            updated_at: now,
            result: None,
            error: None,
            reserved,
        };
        self.next_seq = self.next_seq.saturating_add(1);
        let view = job.view(job_id, true);
        self.jobs.insert(job_id.into(), job);
        if let Some(key) = idempotency_key {
            self.submit_keys
                .insert((owner.clone(), key.into()), job_id.into());
        }
        Ok(view)
    }

    /// Moves queued jobs FIFO into `processing` while their workspace has free slots; returns
    /// the ids started, in order (start their workers). Call it after every submit, complete,
    /// fail, expire or cancel, or on a timer.
    pub fn dispatch(&mut self, now: u64) -> Vec<String> {
        self.dispatch_waited(now, 0)
    }

    /// [`JobBook::dispatch`] for a server whose jobs wait in the queue at least `queue_wait_ms`
    /// after their submit before generation may start: only jobs submitted at or before
    /// `now - queue_wait_ms` are moved (still FIFO, still within the slots). Call it after every
    /// change and when the oldest queued job's wait ends.
    pub fn dispatch_waited(&mut self, now: u64, queue_wait_ms: u64) -> Vec<String> {
        let mut busy: BTreeMap<String, usize> = BTreeMap::new();
        let mut queued: Vec<(u64, String)> = Vec::new();
        for (id, j) in &self.jobs {
            match j.status.phase() {
                Status::Processing => *busy.entry(j.owner.workspace.clone()).or_insert(0) += 1,
                Status::Queued if j.submitted_at.saturating_add(queue_wait_ms) <= now => {
                    queued.push((j.seq, id.clone()))
                }
                _ => {}
            }
        }
        queued.sort();
        let limit = self.config.concurrency_per_workspace;
        let mut started = Vec::new();
        for (_, id) in queued {
            let Some(job) = self.jobs.get_mut(&id) else {
                continue;
            };
            let slots = busy.entry(job.owner.workspace.clone()).or_insert(0);
            if *slots < limit {
                *slots += 1;
                job.status = Status::Processing;
                job.updated_at = job.updated_at.max(now);
                started.push(id);
            }
        }
        started
    }

    fn write(&mut self, now: u64, job_id: &str, to: Status, body: Option<Value>) -> WriteOutcome {
        let Some(job) = self.jobs.get_mut(job_id) else {
            return WriteOutcome::UnknownId;
        };
        match transition(Model::Job, job.status, to) {
            Ok(Transition::Allowed) => {}
            Ok(Transition::FromTerminal) | Ok(Transition::Repeat) if job.status.is_terminal() => {
                return WriteOutcome::IgnoredTerminal { status: job.status }
            }
            _ => return WriteOutcome::NotAllowed { status: job.status },
        }
        job.status = to;
        job.updated_at = job.updated_at.max(now);
        match to {
            Status::Completed => job.result = body.map(Json::from),
            _ => job.error = body.map(Json::from),
        }
        if to != Status::Completed && job.reserved > 0 {
            if let Some(balance) = self.credits.get_mut(&job.owner.workspace) {
                *balance = balance.saturating_add(job.reserved);
            }
            job.reserved = 0;
        }
        WriteOutcome::Applied
    }

    /// Worker: the job finished with `result` (needs `processing`). It bills. First terminal
    /// write wins.
    pub fn complete(&mut self, now: u64, job_id: &str, result: Value) -> WriteOutcome {
        self.write(now, job_id, Status::Completed, Some(result))
    }

    /// Worker: the job failed with the error body `error` (from `queued` or `processing`). The
    /// reservation is refunded. First terminal write wins.
    pub fn fail(&mut self, now: u64, job_id: &str, error: Value) -> WriteOutcome {
        self.write(now, job_id, Status::Failed, Some(error))
    }

    /// Worker: the job expired before it finished (from `queued` or `processing`). The error
    /// body is `{code: "expired", message}`; the reservation is refunded. First terminal write
    /// wins.
    pub fn expire(&mut self, now: u64, job_id: &str) -> WriteOutcome {
        let body = json!({"code": "expired", "message": "the job expired before it finished"});
        self.write(now, job_id, Status::Expired, Some(body))
    }

    /// `jobs_get`: the caller's job, with its result when completed and its error body when
    /// failed or expired.
    ///
    /// Answers: `404 not_found` for an unknown id or another member's job.
    pub fn get(&self, owner: &Owner, job_id: &str) -> Result<JobView, ApiError> {
        self.owned(owner, job_id)
            .map(|j| j.view(job_id, true))
            .ok_or_else(not_found)
    }

    /// `jobs_list`: the caller's jobs only, in submission order, statuses and error bodies
    /// (results are fetched with `get` or `wait`).
    #[must_use]
    pub fn list(&self, owner: &Owner) -> Vec<JobView> {
        let mut mine: Vec<(u64, JobView)> = self
            .jobs
            .iter()
            .filter(|(_, j)| job_access(&j.owner, owner) == Access::Owner)
            .map(|(id, j)| (j.seq, j.view(id, false)))
            .collect();
        mine.sort_by_key(|(seq, _)| *seq);
        mine.into_iter().map(|(_, v)| v).collect()
    }

    /// `jobs_cancel`: see [`CANCEL_TABLE`]. Call [`JobBook::dispatch`] afterwards (a freed
    /// queue position changes nothing about slots, but hosts keep one rule).
    ///
    /// Answers: 200 with the canceled job; 409 `job_generation_already_started` (with
    /// `details.cancelable: false`); 409 `job_not_cancelable`; 404 `not_found`; a replayed
    /// `idempotency_key` returns the original answer; the same key for another job is
    /// `422 idempotency_key_mismatch`.
    pub fn cancel(
        &mut self,
        now: u64,
        owner: &Owner,
        job_id: &str,
        idempotency_key: Option<&str>,
    ) -> Result<JobView, ApiError> {
        let key = idempotency_key.map(|k| (owner.clone(), k.to_string()));
        if let Some(record) = key.as_ref().and_then(|k| self.cancel_keys.get(k)) {
            return if record.job_id == job_id {
                record.answer.clone()
            } else {
                Err(api_error(
                    422,
                    "idempotency_key_mismatch",
                    "this idempotency key was used to cancel another job",
                    None,
                ))
            };
        }
        let answer = match self.owned(owner, job_id).map(|j| j.status) {
            None => Err(not_found()),
            Some(status) => match cancel_rule(status) {
                CancelRule::Cancel => {
                    self.write(now, job_id, Status::Canceled, None);
                    self.get(owner, job_id)
                }
                CancelRule::Replay => self.get(owner, job_id),
                CancelRule::Started => Err(api_error(
                    409,
                    "job_generation_already_started",
                    "generation has already started; the job will run to completion and bill",
                    Some(json!({"cancelable": false, "status": status.as_str()})),
                )),
                CancelRule::NotCancelable => Err(api_error(
                    409,
                    "job_not_cancelable",
                    "the job has already finished; there is nothing to cancel",
                    Some(json!({"cancelable": false, "status": status.as_str()})),
                )),
            },
        };
        if let Some(k) = key {
            self.cancel_keys.insert(
                k,
                CancelRecord {
                    job_id: job_id.into(),
                    answer: answer.clone(),
                },
            );
        }
        answer
    }

    /// `jobs_wait`: a snapshot of up to [`MAX_WAIT_IDS`] of the caller's jobs and whether
    /// `wait_for` is satisfied. Call it when the request arrives and again after every change
    /// (worker write, cancel) while holding it; at the host's timeout answer the last snapshot.
    /// `now` is accepted for symmetry; the answer depends only on the book.
    ///
    /// Answers: `400 invalid_request` for no ids, more than [`MAX_WAIT_IDS`], or duplicates.
    pub fn wait(
        &self,
        now: u64,
        owner: &Owner,
        job_ids: &[String],
        wait_for: WaitFor,
        include_results: bool,
    ) -> Result<WaitSnapshot, ApiError> {
        let _ = now;
        if job_ids.is_empty() || job_ids.len() > MAX_WAIT_IDS {
            return Err(api_error(
                400,
                "invalid_request",
                "job_ids takes 1 to 20 ids",
                Some(
                    json!({"field": "job_ids", "min": 1, "max": MAX_WAIT_IDS, "got": job_ids.len()}),
                ),
            ));
        }
        let mut seen = alloc::collections::BTreeSet::new();
        if !job_ids.iter().all(|id| seen.insert(id.as_str())) {
            return Err(invalid_request("job_ids", "ids must be distinct"));
        }
        let mut settled = 0usize;
        let jobs: Vec<WaitEntry> = job_ids
            .iter()
            .map(|id| match self.owned(owner, id) {
                Some(j) => {
                    if j.status.is_terminal() {
                        settled += 1;
                    }
                    WaitEntry::Job {
                        job: j.view(id, include_results),
                    }
                }
                None => {
                    settled += 1;
                    WaitEntry::NotFound { id: id.clone() }
                }
            })
            .collect();
        let satisfied = match wait_for {
            WaitFor::All => settled == jobs.len(),
            WaitFor::Any => settled > 0,
        };
        Ok(WaitSnapshot { jobs, satisfied })
    }
}
