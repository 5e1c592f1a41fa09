//! Statuses with their exact wire spellings (L-1, L-2); a string a model does not define is a
//! typed error that quotes it (L-9).
//!
//! Rules take the status of their own model: [`TaskStatus`] (both MCP revisions) and
//! [`JobStatus`], so a task status cannot be handed to a job rule. [`Status`] holds the statuses
//! of all three models for the paths that carry any of them (hosts, vectors, the numbers-only
//! WebAssembly path, the wire); [`Status::parse`] checks that a status belongs to the model it
//! is read for, and [`Status::task`] / [`Status::job`] narrow it. A typed status converts back
//! with `Status::from`, keeping its code. Note the spellings: MCP `cancelled` (double l), Sume
//! `canceled`.

use core::fmt;

use serde::Serialize;

use crate::error::Error;
use crate::model::Model;

/// A lifecycle status of a task or a job.
///
/// ```
/// use longcall::{Model, Status};
/// let s = Status::parse(Model::Task2026, "input_required").unwrap();
/// assert_eq!(s, Status::InputRequired);
/// assert!(!s.is_terminal());
/// // The wrong spelling for the model is a typed error, never a default.
/// assert_eq!(Status::parse(Model::Task2026, "canceled").unwrap_err().code(), "status_not_in_model");
/// assert_eq!(Status::parse(Model::Job, "pending").unwrap_err().code(), "unknown_status");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Task: the request is being processed.
    Working = 0,
    /// Task: the server waits for client input listed in `inputRequests`.
    InputRequired = 1,
    /// Task or job: finished with a result (a task result may still carry `isError`).
    Completed = 2,
    /// Task or job: finished with an error.
    Failed = 3,
    /// Task: cancelled (MCP spelling).
    Cancelled = 4,
    /// Job: accepted, waiting for a concurrency slot. The only state a job can be cancelled in.
    Queued = 5,
    /// Job: generation has started; it runs to completion and bills.
    Processing = 6,
    /// Job: Sume's public name for the processing phase.
    Running = 7,
    /// Job: cancelled while queued (Sume spelling).
    Canceled = 8,
    /// Job: expired before it finished (terminal).
    Expired = 9,
}

crate::tagged::unit_enum!(Status, "enum Status", &Status::ALL, Status::as_str);

impl Status {
    /// Every status, in code order.
    pub const ALL: [Status; 10] = [
        Status::Working,
        Status::InputRequired,
        Status::Completed,
        Status::Failed,
        Status::Cancelled,
        Status::Queued,
        Status::Processing,
        Status::Running,
        Status::Canceled,
        Status::Expired,
    ];

    /// The statuses of the MCP task models.
    pub const TASK: [Status; 5] = [
        Status::Working,
        Status::InputRequired,
        Status::Completed,
        Status::Failed,
        Status::Cancelled,
    ];

    /// The statuses of the job model.
    pub const JOB: [Status; 7] = [
        Status::Queued,
        Status::Processing,
        Status::Running,
        Status::Completed,
        Status::Failed,
        Status::Canceled,
        Status::Expired,
    ];

    /// The exact wire spelling.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Status::Working => "working",
            Status::InputRequired => "input_required",
            Status::Completed => "completed",
            Status::Failed => "failed",
            Status::Cancelled => "cancelled",
            Status::Queued => "queued",
            Status::Processing => "processing",
            Status::Running => "running",
            Status::Canceled => "canceled",
            Status::Expired => "expired",
        }
    }

    /// The numeric code used by the numbers-only WebAssembly path.
    #[must_use]
    pub const fn code(self) -> u8 {
        self as u8
    }

    /// The status for a numeric code, if there is one.
    #[must_use]
    pub const fn from_code(code: u8) -> Option<Status> {
        match code {
            0 => Some(Status::Working),
            1 => Some(Status::InputRequired),
            2 => Some(Status::Completed),
            3 => Some(Status::Failed),
            4 => Some(Status::Cancelled),
            5 => Some(Status::Queued),
            6 => Some(Status::Processing),
            7 => Some(Status::Running),
            8 => Some(Status::Canceled),
            9 => Some(Status::Expired),
            _ => None,
        }
    }

    /// Terminal statuses never change again (the same set for every model that speaks them).
    #[must_use]
    pub const fn is_terminal(self) -> bool {
        matches!(
            self,
            Status::Completed
                | Status::Failed
                | Status::Cancelled
                | Status::Canceled
                | Status::Expired
        )
    }

    /// True for a cancelled task or a canceled job.
    #[must_use]
    pub const fn is_cancelled(self) -> bool {
        matches!(self, Status::Cancelled | Status::Canceled)
    }

    /// The phase a status stands for: `running` is `processing` under another name.
    #[must_use]
    pub const fn phase(self) -> Status {
        match self {
            Status::Running => Status::Processing,
            other => other,
        }
    }

    /// Whether `model` speaks this status.
    #[must_use]
    pub const fn belongs_to(self, model: Model) -> bool {
        match model {
            Model::Task2026 | Model::Task2025 => (self as u8) <= 4,
            Model::Job => matches!(
                self,
                Status::Queued
                    | Status::Processing
                    | Status::Running
                    | Status::Completed
                    | Status::Failed
                    | Status::Canceled
                    | Status::Expired
            ),
        }
    }

    /// The statuses `model` speaks.
    #[must_use]
    pub fn of(model: Model) -> &'static [Status] {
        if model.is_task() {
            &Status::TASK
        } else {
            &Status::JOB
        }
    }

    /// Reads a wire status for `model`.
    ///
    /// An unknown string is [`Error::UnknownStatus`] carrying the raw text (never "pending");
    /// a real status of another model (`canceled` for a task) is [`Error::StatusNotInModel`].
    pub fn parse(model: Model, raw: &str) -> Result<Status, Error> {
        let status = Status::ALL
            .into_iter()
            .find(|s| s.as_str() == raw)
            .ok_or_else(|| Error::UnknownStatus {
                model,
                raw: raw.into(),
            })?;
        status.expect_in(model)
    }

    /// Returns the status if `model` speaks it, else [`Error::StatusNotInModel`].
    pub fn expect_in(self, model: Model) -> Result<Status, Error> {
        if self.belongs_to(model) {
            Ok(self)
        } else {
            Err(Error::StatusNotInModel {
                model,
                status: self,
            })
        }
    }
}

/// One model's statuses as their own type: the same spellings and codes as [`Status`], so the
/// conversions are exact both ways.
macro_rules! model_status {
    ($(#[$doc:meta])* $name:ident, $model:literal, [$($(#[$vdoc:meta])* $v:ident),+ $(,)?]) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
        #[serde(rename_all = "snake_case")]
        pub enum $name {
            $($(#[$vdoc])* $v = Status::$v as isize,)+
        }

        impl $name {
            #[doc = concat!("Every ", $model, " status, in the order of [`Status`]'s table.")]
            pub const ALL: &'static [$name] = &[$($name::$v),+];

            /// The combined status (the same code and spelling).
            #[must_use]
            pub const fn status(self) -> Status {
                match self {
                    $($name::$v => Status::$v,)+
                }
            }

            /// The exact wire spelling.
            #[must_use]
            pub const fn as_str(self) -> &'static str {
                self.status().as_str()
            }

            /// The numeric code, the same as [`Status::code`].
            #[must_use]
            pub const fn code(self) -> u8 {
                self as u8
            }

            /// Terminal statuses never change again.
            #[must_use]
            pub const fn is_terminal(self) -> bool {
                self.status().is_terminal()
            }
        }

        $crate::tagged::unit_enum!($name, concat!("enum ", stringify!($name)), $name::ALL, $name::as_str);

        impl From<$name> for Status {
            fn from(s: $name) -> Status {
                s.status()
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

model_status!(
    /// A status of an MCP task (both revisions).
    ///
    /// ```
    /// use longcall::status::TaskStatus;
    /// use longcall::Status;
    /// assert_eq!(Status::Cancelled.task(), Some(TaskStatus::Cancelled));
    /// assert_eq!(Status::Canceled.task(), None); // the job spelling
    /// assert_eq!(Status::from(TaskStatus::InputRequired).code(), TaskStatus::InputRequired.code());
    /// ```
    TaskStatus,
    "task",
    [
        /// The request is being processed.
        Working,
        /// The server waits for client input listed in `inputRequests`.
        InputRequired,
        /// Finished with a result (which may still carry `isError`).
        Completed,
        /// Finished with an error.
        Failed,
        /// Cancelled (MCP spelling).
        Cancelled,
    ]
);

model_status!(
    /// A status of a job.
    ///
    /// ```
    /// use longcall::status::JobStatus;
    /// use longcall::Status;
    /// assert_eq!(Status::Canceled.job(), Some(JobStatus::Canceled));
    /// assert_eq!(Status::Working.job(), None);
    /// assert_eq!(JobStatus::Running.as_str(), "running");
    /// ```
    JobStatus,
    "job",
    [
        /// Accepted, waiting for a concurrency slot. The only state a job can be cancelled in.
        Queued,
        /// Generation has started; it runs to completion and bills.
        Processing,
        /// Sume's public name for the processing phase.
        Running,
        /// Finished with a result.
        Completed,
        /// Finished with an error.
        Failed,
        /// Cancelled while queued (Sume spelling).
        Canceled,
        /// Expired before it finished (terminal).
        Expired,
    ]
);

impl Status {
    /// The task status this is, if tasks speak it.
    #[must_use]
    pub const fn task(self) -> Option<TaskStatus> {
        Some(match self {
            Status::Working => TaskStatus::Working,
            Status::InputRequired => TaskStatus::InputRequired,
            Status::Completed => TaskStatus::Completed,
            Status::Failed => TaskStatus::Failed,
            Status::Cancelled => TaskStatus::Cancelled,
            _ => return None,
        })
    }

    /// The job status this is, if jobs speak it.
    #[must_use]
    pub const fn job(self) -> Option<JobStatus> {
        Some(match self {
            Status::Queued => JobStatus::Queued,
            Status::Processing => JobStatus::Processing,
            Status::Running => JobStatus::Running,
            Status::Completed => JobStatus::Completed,
            Status::Failed => JobStatus::Failed,
            Status::Canceled => JobStatus::Canceled,
            Status::Expired => JobStatus::Expired,
            _ => return None,
        })
    }
}

impl Status {
    /// The task status this is, or [`Error::StatusNotInModel`] for a job-only status.
    pub fn expect_task(self) -> Result<TaskStatus, Error> {
        self.task().ok_or(Error::StatusNotInModel {
            model: Model::Task2026,
            status: self,
        })
    }

    /// The job status this is, or [`Error::StatusNotInModel`] for a task-only status.
    pub fn expect_job(self) -> Result<JobStatus, Error> {
        self.job().ok_or(Error::StatusNotInModel {
            model: Model::Job,
            status: self,
        })
    }
}

impl JobStatus {
    /// The phase a status stands for: `running` is `processing` under another name.
    #[must_use]
    pub const fn phase(self) -> JobStatus {
        match self {
            JobStatus::Running => JobStatus::Processing,
            other => other,
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rules L-1, L-2: the typed statuses are exactly the model's spellings and codes.
    #[test]
    fn typed_statuses_convert_exactly() {
        for s in Status::ALL {
            assert_eq!(s.task().is_some(), s.belongs_to(Model::Task2026), "{s}");
            assert_eq!(s.job().is_some(), s.belongs_to(Model::Job), "{s}");
            if let Some(t) = s.task() {
                assert_eq!(
                    (Status::from(t), t.code(), t.as_str()),
                    (s, s.code(), s.as_str())
                );
                assert_eq!(t.is_terminal(), s.is_terminal());
            }
            if let Some(j) = s.job() {
                assert_eq!(
                    (Status::from(j), j.code(), j.as_str()),
                    (s, s.code(), s.as_str())
                );
                assert_eq!(j.phase().status(), s.phase());
            }
        }
        let task: alloc::vec::Vec<Status> = TaskStatus::ALL.iter().map(|t| t.status()).collect();
        let job: alloc::vec::Vec<Status> = JobStatus::ALL.iter().map(|j| j.status()).collect();
        assert_eq!(task, Status::TASK);
        assert_eq!(job, Status::JOB);
        assert_eq!(
            serde_json::to_string(&JobStatus::Canceled).unwrap(),
            "\"canceled\""
        );
        assert_eq!(
            serde_json::from_str::<TaskStatus>("\"input_required\"").unwrap(),
            TaskStatus::InputRequired
        );
        assert!(serde_json::from_str::<TaskStatus>("\"canceled\"").is_err());
    }
}
