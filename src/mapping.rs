//! The task/job mapping (L-10 of `docs/rules.md`) as data: a design comparison, not a compatibility
//! claim (Sume does not say it implements the tasks extension).

use crate::status::Status;

/// One row of the concept mapping: an MCP task concept and the closest Sume job construct
/// (`None` where Sume has nothing).
pub type ConceptRow = (&'static str, Option<&'static str>);

/// The concept mapping, row by row (L-10).
pub const CONCEPTS: &[ConceptRow] = &[
    ("taskId", Some("job id (stable, owned, durable)")),
    ("working", Some("queued, processing/running")),
    ("input_required", None),
    ("completed (+ check isError)", Some("completed")),
    ("failed", Some("failed, expired")),
    ("cancelled", Some("canceled")),
    ("tasks/get (poll)", Some("jobs_get / jobs_wait")),
    (
        "tasks/cancel (cooperative ack)",
        Some("jobs_cancel (only while queued; 409 after start)"),
    ),
    ("pollIntervalMs", Some("backoff guidance / Retry-After")),
    ("ttlMs", None),
    ("tasks/update", None),
];

/// Status mapping rows: a task status and the job statuses that map to it.
pub const STATUSES: &[(Status, &[Status])] = &[
    (
        Status::Working,
        &[Status::Queued, Status::Processing, Status::Running],
    ),
    (Status::InputRequired, &[]),
    (Status::Completed, &[Status::Completed]),
    (Status::Failed, &[Status::Failed, Status::Expired]),
    (Status::Cancelled, &[Status::Canceled]),
];

/// The task status a job status corresponds to (`None` for a status that is not a job's).
///
/// ```
/// use longcall::{mapping::task_status_for, Status};
/// assert_eq!(task_status_for(Status::Expired), Some(Status::Failed));
/// assert_eq!(task_status_for(Status::Running), Some(Status::Working));
/// ```
#[must_use]
pub fn task_status_for(job: Status) -> Option<Status> {
    STATUSES
        .iter()
        .find(|(_, jobs)| jobs.contains(&job))
        .map(|(task, _)| *task)
}

/// The job statuses a task status corresponds to (empty for `input_required`).
#[must_use]
pub fn job_statuses_for(task: Status) -> &'static [Status] {
    STATUSES
        .iter()
        .find(|(t, _)| *t == task)
        .map_or(&[], |(_, jobs)| jobs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Model;

    /// Rules L-10.
    #[test]
    fn every_job_status_maps_to_exactly_one_task_status() {
        for &j in Status::of(Model::Job) {
            let n = STATUSES.iter().filter(|(_, js)| js.contains(&j)).count();
            assert_eq!(n, 1, "{j}");
            let t = task_status_for(j).unwrap();
            assert_eq!(t.is_terminal(), j.is_terminal(), "{j} -> {t}");
            assert!(job_statuses_for(t).contains(&j));
        }
        assert!(job_statuses_for(Status::InputRequired).is_empty());
        assert_eq!(task_status_for(Status::Working), None);
    }

    /// Rules L-10.
    #[test]
    fn every_task_status_has_a_row() {
        for &t in Status::of(Model::Task2026) {
            assert!(STATUSES.iter().any(|(s, _)| *s == t), "{t}");
        }
        assert_eq!(CONCEPTS.len(), 11);
    }
}
