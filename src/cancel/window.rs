//! The cancel window (C-1).
//!
//! Rules: a task can be cancelled while `working` or `input_required` (cooperatively: see
//! [`super::answer`]). A job can be cancelled only while `queued`: queued time has cost nothing
//! yet; once generation has started (`processing`, `running`) the job runs to completion and bills.
//! Nothing terminal can be cancelled.

use serde::Serialize;

use crate::error::Error;
use crate::model::Model;
use crate::status::{JobStatus, Status, TaskStatus};

/// Where a call stands with respect to cancellation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Window {
    /// A cancel request can be sent now.
    Open = 0,
    /// Job only: generation has started; a cancel would be answered 409 and the job bills.
    Started = 1,
    /// The call is terminal; there is nothing to cancel.
    Terminal = 2,
}

crate::tagged::unit_enum!(
    Window,
    "enum Window",
    [
        (Window::Open, "open"),
        (Window::Started, "started"),
        (Window::Terminal, "terminal"),
    ]
);

impl Window {
    /// The numeric code used by the numbers-only WebAssembly path.
    #[must_use]
    pub const fn code(self) -> u8 {
        self as u8
    }
}

/// The cancel window of a task last seen in `status` (both revisions): open until terminal.
///
/// ```
/// use longcall::cancel::{task_window, Window};
/// use longcall::status::TaskStatus;
/// assert_eq!(task_window(TaskStatus::InputRequired), Window::Open);
/// assert_eq!(task_window(TaskStatus::Failed), Window::Terminal);
/// ```
#[must_use]
pub const fn task_window(status: TaskStatus) -> Window {
    if status.is_terminal() {
        Window::Terminal
    } else {
        Window::Open
    }
}

/// The cancel window of a job last seen in `status`: open only while `queued`.
///
/// ```
/// use longcall::cancel::{job_window, Window};
/// use longcall::status::JobStatus;
/// assert_eq!(job_window(JobStatus::Queued), Window::Open);
/// assert_eq!(job_window(JobStatus::Running), Window::Started);
/// ```
#[must_use]
pub const fn job_window(status: JobStatus) -> Window {
    if status.is_terminal() {
        Window::Terminal
    } else if matches!(status.phase(), JobStatus::Processing) {
        Window::Started
    } else {
        Window::Open
    }
}

/// [`task_window`] or [`job_window`] for a call of `model` last seen in `status`, in the
/// combined [`Status`]: a status `model` does not speak is [`Error::StatusNotInModel`].
///
/// ```
/// use longcall::cancel::{window, Window};
/// use longcall::{Model, Status};
/// assert_eq!(window(Model::Job, Status::Queued).unwrap(), Window::Open);
/// assert_eq!(window(Model::Job, Status::Running).unwrap(), Window::Started);
/// assert_eq!(window(Model::Task2026, Status::InputRequired).unwrap(), Window::Open);
/// ```
pub fn window(model: Model, status: Status) -> Result<Window, Error> {
    match (model.is_task(), status.task(), status.job()) {
        (true, Some(task), _) => Ok(task_window(task)),
        (false, _, Some(job)) => Ok(job_window(job)),
        _ => Err(Error::StatusNotInModel { model, status }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_status_of_every_model() {
        for model in Model::ALL {
            for &s in Status::of(model) {
                let want = match (model, s) {
                    (_, s) if s.is_terminal() => Window::Terminal,
                    (Model::Job, Status::Queued) => Window::Open,
                    (Model::Job, _) => Window::Started,
                    _ => Window::Open,
                };
                assert_eq!(window(model, s).unwrap(), want, "{model} {s}");
            }
        }
        assert!(window(Model::Job, Status::Working).is_err());
    }
}
