//! Status transitions. The tables below are the data; every function reads them.
//!
//! Rules (area L of `docs/rules.md`), written once:
//!
//! 1. **Server truth** (L-3, L-4). A status moves only along an edge of its model's table.
//! 2. **Repeats are not transitions** (L-5). `X → X` is a repeated poll (it may still carry new
//!    fields such as `statusMessage` or `pollIntervalMs`); `processing ↔ running` is one phase
//!    under two names and counts as a repeat too.
//! 3. **Terminal is absorbing** (L-6). No edge leaves `completed`, `failed`, `cancelled`,
//!    `canceled` or `expired`. A server that reports a different status after a terminal one
//!    violates the protocol: the client keeps the first terminal status and reports the conflict.
//! 4. **Observation is not truth** (L-7). A poller sees a subsequence of the true path, so `A` then
//!    `C` is consistent if some path `A →* C` exists (`queued → completed`: `processing` was
//!    missed). `processing → queued` has no path: a regression.
//! 5. **Seeds** (L-8). A 2025 task MUST start `working`. A 2026 task is "typically" seeded
//!    `working` but a client must accept any seed, even a terminal one. A job is created `queued`,
//!    but a resumed watcher may first see it in any status.
//!
//! The tables are written in each model's own status type ([`TASK_TABLE`], [`JOB_TABLE`]), and so
//! are the rule functions ([`task_transition`], [`job_observe`], ...): a task status cannot reach
//! a job rule, and a valid call cannot fail. [`transition`] and [`observe`] take the combined
//! [`Status`] for the paths that carry any model and refuse a status the model does not speak.
//!
//! The README's state diagrams are generated from [`table`] by `longcall diagram` and a test
//! checks that they match.

use serde::Serialize;

use crate::error::Error;
use crate::model::{Model, TaskRevision};
use crate::status::Status::{self, *};
use crate::status::{JobStatus, TaskStatus};

/// One row of a transition table in the combined [`Status`] (what [`table`] lists for every
/// model): a status and the statuses the server may move it to.
pub type Row = (Status, &'static [Status]);

/// Writes a table once, in its model's own status type, and the same rows in the combined
/// [`Status`] beside it.
macro_rules! transition_table {
    ($(#[$doc:meta])* $typed:ident, $rows:ident, $ty:ident {
        $($from:ident => [$($to:ident),*],)+
    }) => {
        $(#[$doc])*
        pub const $typed: &[($ty, &[$ty])] = &[$(($ty::$from, &[$($ty::$to),*]),)+];
        #[doc = concat!("[`", stringify!($typed), "`] in the combined [`Status`].")]
        pub const $rows: &[Row] = &[$((Status::$from, &[$(Status::$to),*]),)+];
    };
}

transition_table!(
    /// MCP tasks, both revisions (the 2025 text and the 2026 diagram agree).
    TASK_TABLE, TASK_ROWS, TaskStatus {
        Working => [InputRequired, Completed, Failed, Cancelled],
        InputRequired => [Working, Completed, Failed, Cancelled],
        Completed => [],
        Failed => [],
        Cancelled => [],
    }
);

transition_table!(
    /// Sume jobs. Never `processing → canceled`: once generation started the job runs and bills.
    JOB_TABLE, JOB_ROWS, JobStatus {
        Queued => [Processing, Running, Canceled, Failed, Expired],
        Processing => [Completed, Failed, Expired],
        Running => [Completed, Failed, Expired],
        Completed => [],
        Failed => [],
        Canceled => [],
        Expired => [],
    }
);

/// The transition table of `model`, in the combined [`Status`].
#[must_use]
pub const fn table(model: Model) -> &'static [Row] {
    match model {
        Model::Task2026 | Model::Task2025 => TASK_ROWS,
        Model::Job => JOB_ROWS,
    }
}

/// The statuses a call of `model` may be created in (rule 5).
#[must_use]
pub const fn seeds(model: Model) -> &'static [Status] {
    match model {
        Model::Task2025 => &[Working],
        Model::Task2026 => &Status::TASK,
        Model::Job => &[Queued],
    }
}

/// Whether the server may really move a call from one status to another (rules 1 to 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Transition {
    /// A true transition of the model.
    Allowed = 0,
    /// The same status (or phase) again: not a transition.
    Repeat = 1,
    /// Not an edge of the table, out of a non-terminal status.
    Forbidden = 2,
    /// Out of a terminal status: never.
    FromTerminal = 3,
}

crate::tagged::unit_enum!(
    Transition,
    "enum Transition",
    [
        (Transition::Allowed, "allowed"),
        (Transition::Repeat, "repeat"),
        (Transition::Forbidden, "forbidden"),
        (Transition::FromTerminal, "from_terminal"),
    ]
);

/// Whether a polled sequence `from` then `to` is consistent with the model (rule 4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Observation {
    /// A direct transition of the model.
    Advance = 0,
    /// The same status (or phase) again.
    Repeat = 1,
    /// Consistent: some statuses were missed between two polls.
    Skipped = 2,
    /// Inconsistent: no path leads back (`processing → queued`).
    Regression = 3,
    /// Inconsistent: a different status after a terminal one. Keep the first terminal status.
    TerminalConflict = 4,
}

crate::tagged::unit_enum!(
    Observation,
    "enum Observation",
    [
        (Observation::Advance, "advance"),
        (Observation::Repeat, "repeat"),
        (Observation::Skipped, "skipped"),
        (Observation::Regression, "regression"),
        (Observation::TerminalConflict, "terminal_conflict"),
    ]
);

impl Observation {
    /// True when a real server could have produced this sequence.
    #[must_use]
    pub const fn is_consistent(self) -> bool {
        matches!(
            self,
            Observation::Advance | Observation::Repeat | Observation::Skipped
        )
    }

    /// The numeric code used by the numbers-only WebAssembly path.
    #[must_use]
    pub const fn code(self) -> u8 {
        self as u8
    }
}

impl Transition {
    /// The numeric code used by the numbers-only WebAssembly path.
    #[must_use]
    pub const fn code(self) -> u8 {
        self as u8
    }
}

/// How a first status seen for a call relates to the model's seeds (rule 5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Seed {
    /// The status a call of this model is created in.
    Normal,
    /// Allowed but unusual: a 2026 task born in another status, or a job first seen later on.
    Unusual,
    /// A protocol violation: a 2025 task that does not start `working`.
    Violation,
}

crate::tagged::unit_enum!(
    Seed,
    "enum Seed",
    [
        (Seed::Normal, "normal"),
        (Seed::Unusual, "unusual"),
        (Seed::Violation, "violation"),
    ]
);

// Bit sets of status codes, built from the tables at compile time, so each check is one lookup.
type Bits = u16;

const fn bit(s: Status) -> Bits {
    1 << (s as u8)
}

// Evaluated at compile time only: an index out of range is a build error, never a runtime panic.
#[allow(clippy::indexing_slicing)]
const fn adjacency(rows: &[Row]) -> [Bits; 10] {
    let mut adj = [0; 10];
    let mut r = 0;
    while r < rows.len() {
        let (from, tos) = rows[r];
        let mut t = 0;
        while t < tos.len() {
            adj[from as usize] |= bit(tos[t]);
            t += 1;
        }
        r += 1;
    }
    adj
}

#[allow(clippy::indexing_slicing)]
const fn closure(adj: [Bits; 10]) -> [Bits; 10] {
    let mut reach = adj;
    let mut changed = true;
    while changed {
        changed = false;
        let mut s = 0;
        while s < 10 {
            let mut next = reach[s];
            let mut t = 0;
            while t < 10 {
                if reach[s] & (1 << t) != 0 {
                    next |= reach[t];
                }
                t += 1;
            }
            if next != reach[s] {
                reach[s] = next;
                changed = true;
            }
            s += 1;
        }
    }
    reach
}

const TASK_EDGES: [Bits; 10] = adjacency(TASK_ROWS);
const JOB_EDGES: [Bits; 10] = adjacency(JOB_ROWS);
const TASK_PATHS: [Bits; 10] = closure(TASK_EDGES);
const JOB_PATHS: [Bits; 10] = closure(JOB_EDGES);

fn lookup(sets: &[Bits; 10], from: Status) -> Bits {
    sets.get(from as usize).copied().unwrap_or(0)
}

/// Rules 1 to 3 on checked statuses of one model (`edges` is that model's table).
fn transition_in(edges: &[Bits; 10], from: Status, to: Status) -> Transition {
    if from.phase() == to.phase() {
        Transition::Repeat
    } else if from.is_terminal() {
        Transition::FromTerminal
    } else if lookup(edges, from) & bit(to) != 0 {
        Transition::Allowed
    } else {
        Transition::Forbidden
    }
}

/// Rules 2 to 4 on checked statuses of one model.
fn observe_in(edges: &[Bits; 10], paths: &[Bits; 10], from: Status, to: Status) -> Observation {
    if from.phase() == to.phase() {
        Observation::Repeat
    } else if from.is_terminal() {
        Observation::TerminalConflict
    } else if lookup(edges, from) & bit(to) != 0 {
        Observation::Advance
    } else if lookup(paths, from) & bit(to) != 0 {
        Observation::Skipped
    } else {
        Observation::Regression
    }
}

/// May the server really move a task from `from` to `to`? ([`TASK_TABLE`], both revisions.)
///
/// ```
/// use longcall::lifecycle::{task_transition, Transition};
/// use longcall::status::TaskStatus::*;
/// assert_eq!(task_transition(Working, InputRequired), Transition::Allowed);
/// assert_eq!(task_transition(Cancelled, Completed), Transition::FromTerminal);
/// ```
#[must_use]
pub fn task_transition(from: TaskStatus, to: TaskStatus) -> Transition {
    transition_in(&TASK_EDGES, from.status(), to.status())
}

/// May the server really move a job from `from` to `to`? ([`JOB_TABLE`].)
///
/// ```
/// use longcall::lifecycle::{job_transition, Transition};
/// use longcall::status::JobStatus::*;
/// assert_eq!(job_transition(Queued, Canceled), Transition::Allowed);
/// assert_eq!(job_transition(Processing, Canceled), Transition::Forbidden);
/// assert_eq!(job_transition(Processing, Running), Transition::Repeat);
/// ```
#[must_use]
pub fn job_transition(from: JobStatus, to: JobStatus) -> Transition {
    transition_in(&JOB_EDGES, from.status(), to.status())
}

/// Is seeing task status `from` and then `to` in two polls consistent?
///
/// ```
/// use longcall::lifecycle::{task_observe, Observation};
/// use longcall::status::TaskStatus::*;
/// assert_eq!(task_observe(Working, Completed), Observation::Advance);
/// assert_eq!(task_observe(Completed, Failed), Observation::TerminalConflict);
/// ```
#[must_use]
pub fn task_observe(from: TaskStatus, to: TaskStatus) -> Observation {
    observe_in(&TASK_EDGES, &TASK_PATHS, from.status(), to.status())
}

/// Is seeing job status `from` and then `to` in two polls consistent?
///
/// ```
/// use longcall::lifecycle::{job_observe, Observation};
/// use longcall::status::JobStatus::*;
/// assert_eq!(job_observe(Queued, Completed), Observation::Skipped);
/// assert_eq!(job_observe(Processing, Queued), Observation::Regression);
/// ```
#[must_use]
pub fn job_observe(from: JobStatus, to: JobStatus) -> Observation {
    observe_in(&JOB_EDGES, &JOB_PATHS, from.status(), to.status())
}

/// `status` as a status of task model `model`, or [`Error::StatusNotInModel`].
fn task_of(model: Model, status: Status) -> Result<TaskStatus, Error> {
    // A match, not ok_or: an Error built and dropped on every call costs more than the rule.
    match status.task() {
        Some(task) => Ok(task),
        None => Err(Error::StatusNotInModel { model, status }),
    }
}

/// `status` as a job status, or [`Error::StatusNotInModel`].
fn job_of(status: Status) -> Result<JobStatus, Error> {
    match status.job() {
        Some(job) => Ok(job),
        None => Err(Error::StatusNotInModel {
            model: Model::Job,
            status,
        }),
    }
}

/// [`task_transition`] or [`job_transition`] for statuses in the combined [`Status`] (the JS,
/// numbers and vector paths): a status `model` does not speak is [`Error::StatusNotInModel`].
///
/// ```
/// use longcall::{lifecycle::{transition, Transition}, Model, Status};
/// assert_eq!(transition(Model::Job, Status::Queued, Status::Canceled).unwrap(), Transition::Allowed);
/// assert_eq!(transition(Model::Job, Status::Processing, Status::Canceled).unwrap(), Transition::Forbidden);
/// assert_eq!(transition(Model::Task2026, Status::Cancelled, Status::Completed).unwrap(), Transition::FromTerminal);
/// assert!(transition(Model::Job, Status::Working, Status::Queued).is_err());
/// ```
pub fn transition(model: Model, from: Status, to: Status) -> Result<Transition, Error> {
    if model.is_task() {
        Ok(task_transition(task_of(model, from)?, task_of(model, to)?))
    } else {
        Ok(job_transition(job_of(from)?, job_of(to)?))
    }
}

/// [`task_observe`] or [`job_observe`] for statuses in the combined [`Status`]: a status
/// `model` does not speak is [`Error::StatusNotInModel`].
///
/// ```
/// use longcall::{lifecycle::{observe, Observation}, Model, Status};
/// assert_eq!(observe(Model::Job, Status::Queued, Status::Completed).unwrap(), Observation::Skipped);
/// assert_eq!(observe(Model::Job, Status::Processing, Status::Queued).unwrap(), Observation::Regression);
/// ```
pub fn observe(model: Model, from: Status, to: Status) -> Result<Observation, Error> {
    if model.is_task() {
        Ok(task_observe(task_of(model, from)?, task_of(model, to)?))
    } else {
        Ok(job_observe(job_of(from)?, job_of(to)?))
    }
}

/// How the first status seen for a task of `revision` relates to its seeds (rule 5): `working`
/// is normal; anything else is unusual in 2026 and a violation in 2025.
///
/// ```
/// use longcall::lifecycle::{task_seed, Seed};
/// use longcall::model::TaskRevision;
/// use longcall::status::TaskStatus;
/// assert_eq!(task_seed(TaskRevision::Mcp2026, TaskStatus::Completed), Seed::Unusual);
/// assert_eq!(task_seed(TaskRevision::Mcp2025, TaskStatus::Completed), Seed::Violation);
/// ```
#[must_use]
pub fn task_seed(revision: TaskRevision, first: TaskStatus) -> Seed {
    match (first, revision) {
        (TaskStatus::Working, _) => Seed::Normal,
        (_, TaskRevision::Mcp2025) => Seed::Violation,
        (_, TaskRevision::Mcp2026) => Seed::Unusual,
    }
}

/// How the first status seen for a job relates to its seed (rule 5): `queued` is normal; a
/// resumed watcher may first see any other status.
#[must_use]
pub fn job_seed(first: JobStatus) -> Seed {
    match first {
        JobStatus::Queued => Seed::Normal,
        _ => Seed::Unusual,
    }
}

/// [`task_seed`] or [`job_seed`] for a status in the combined [`Status`]: a status `model` does
/// not speak is [`Error::StatusNotInModel`].
pub fn seed(model: Model, first: Status) -> Result<Seed, Error> {
    match model.task_revision() {
        Some(revision) => Ok(task_seed(revision, task_of(model, first)?)),
        None => Ok(job_seed(job_of(first)?)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listed(model: Model, from: Status, to: Status) -> bool {
        table(model)
            .iter()
            .any(|(f, tos)| *f == from && tos.contains(&to))
    }

    /// Every ordered pair of every model, checked against the rows as written.
    #[test]
    fn transition_follows_the_rows() {
        for model in Model::ALL {
            for &from in Status::of(model) {
                for &to in Status::of(model) {
                    let got = transition(model, from, to).unwrap();
                    let want = if from.phase() == to.phase() {
                        Transition::Repeat
                    } else if from.is_terminal() {
                        Transition::FromTerminal
                    } else if listed(model, from, to) {
                        Transition::Allowed
                    } else {
                        Transition::Forbidden
                    };
                    assert_eq!(got, want, "{model} {from} -> {to}");
                }
            }
        }
    }

    /// Rules L-3, L-4: the typed rules and the combined wrappers are one rule: the same rows,
    /// the same answers for every pair of the model's statuses.
    #[test]
    fn typed_rules_and_combined_wrappers_agree() {
        use alloc::vec::Vec;
        let combined = |rows: &[Row]| -> Vec<(Status, Vec<Status>)> {
            rows.iter().map(|(f, tos)| (*f, tos.to_vec())).collect()
        };
        let task: Vec<(Status, Vec<Status>)> = TASK_TABLE
            .iter()
            .map(|(f, tos)| (f.status(), tos.iter().map(|t| t.status()).collect()))
            .collect();
        let job: Vec<(Status, Vec<Status>)> = JOB_TABLE
            .iter()
            .map(|(f, tos)| (f.status(), tos.iter().map(|t| t.status()).collect()))
            .collect();
        assert_eq!(task, combined(TASK_ROWS));
        assert_eq!(job, combined(JOB_ROWS));
        for &from in TaskStatus::ALL {
            for &to in TaskStatus::ALL {
                for model in [Model::Task2026, Model::Task2025] {
                    let (f, t) = (from.status(), to.status());
                    assert_eq!(transition(model, f, t).unwrap(), task_transition(from, to));
                    assert_eq!(observe(model, f, t).unwrap(), task_observe(from, to));
                }
            }
        }
        for &from in JobStatus::ALL {
            for &to in JobStatus::ALL {
                let (f, t) = (from.status(), to.status());
                assert_eq!(
                    transition(Model::Job, f, t).unwrap(),
                    job_transition(from, to)
                );
                assert_eq!(observe(Model::Job, f, t).unwrap(), job_observe(from, to));
            }
        }
    }

    #[test]
    fn every_status_of_a_model_has_a_row() {
        for model in Model::ALL {
            for &s in Status::of(model) {
                let rows = table(model).iter().filter(|(f, _)| *f == s).count();
                assert_eq!(rows, 1, "{model} {s}");
                let terminal_row_empty = table(model).iter().any(|(f, t)| *f == s && t.is_empty());
                assert_eq!(terminal_row_empty, s.is_terminal(), "{model} {s}");
            }
        }
    }

    #[test]
    fn named_rules() {
        use Observation as O;
        let job = Model::Job;
        assert_eq!(observe(job, Queued, Completed).unwrap(), O::Skipped);
        assert_eq!(observe(job, Processing, Queued).unwrap(), O::Regression);
        assert_eq!(observe(job, Processing, Running).unwrap(), O::Repeat);
        assert_eq!(
            transition(job, Processing, Canceled).unwrap(),
            Transition::Forbidden
        );
        assert_eq!(
            transition(job, Running, Canceled).unwrap(),
            Transition::Forbidden
        );
        assert_eq!(observe(job, Processing, Canceled).unwrap(), O::Regression);
        for task in [Model::Task2026, Model::Task2025] {
            assert_eq!(
                observe(task, Cancelled, Completed).unwrap(),
                O::TerminalConflict
            );
            assert_eq!(observe(task, InputRequired, Working).unwrap(), O::Advance);
        }
        assert_eq!(seed(Model::Task2025, Completed).unwrap(), Seed::Violation);
        assert_eq!(seed(Model::Task2026, Completed).unwrap(), Seed::Unusual);
        assert_eq!(seed(Model::Task2026, Working).unwrap(), Seed::Normal);
    }

    #[test]
    fn foreign_statuses_are_typed_errors() {
        let e = transition(Model::Task2026, Canceled, Working).unwrap_err();
        assert_eq!(e.code(), "status_not_in_model");
        let e = observe(Model::Job, Queued, Cancelled).unwrap_err();
        assert_eq!(e.code(), "status_not_in_model");
    }
}
