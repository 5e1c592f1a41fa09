//! The three lifecycles longcall models, side by side.

use core::fmt;
use core::str::FromStr;

use serde::Serialize;

use crate::error::Error;

/// Which lifecycle a call follows. Every rule in the crate is keyed by this.
///
/// ```
/// use longcall::Model;
/// assert_eq!("task-2026".parse::<Model>().unwrap(), Model::Task2026);
/// assert_eq!(Model::Job.as_str(), "job");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Model {
    /// MCP 2026-07-28 Tasks extension `io.modelcontextprotocol/tasks`.
    #[serde(rename = "task-2026")]
    Task2026 = 0,
    /// MCP 2025-11-25 experimental tasks (the 1.x TypeScript SDK and many servers).
    #[serde(rename = "task-2025")]
    Task2025 = 1,
    /// Sume-style paid jobs: queue-first admission, cancel only while queued.
    #[serde(rename = "job")]
    Job = 2,
}

crate::tagged::unit_enum!(Model, "enum Model", &Model::ALL, Model::as_str);

impl Model {
    /// Every model, in code order.
    pub const ALL: [Model; 3] = [Model::Task2026, Model::Task2025, Model::Job];

    /// The stable name used in vectors, snapshots, the CLI and JavaScript.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Model::Task2026 => "task-2026",
            Model::Task2025 => "task-2025",
            Model::Job => "job",
        }
    }

    /// The numeric code used by the numbers-only WebAssembly path.
    #[must_use]
    pub const fn code(self) -> u8 {
        self as u8
    }

    /// The model for a numeric code, if there is one.
    #[must_use]
    pub const fn from_code(code: u8) -> Option<Model> {
        match code {
            0 => Some(Model::Task2026),
            1 => Some(Model::Task2025),
            2 => Some(Model::Job),
            _ => None,
        }
    }

    /// True for the two MCP task revisions.
    #[must_use]
    pub const fn is_task(self) -> bool {
        matches!(self, Model::Task2026 | Model::Task2025)
    }
}

/// The MCP task revision of a task model: what a task rule that differs between the revisions
/// takes beside a [`crate::status::TaskStatus`].
///
/// ```
/// use longcall::model::TaskRevision;
/// use longcall::Model;
/// assert_eq!(Model::Task2025.task_revision(), Some(TaskRevision::Mcp2025));
/// assert_eq!(Model::Job.task_revision(), None);
/// assert_eq!(Model::from(TaskRevision::Mcp2026), Model::Task2026);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TaskRevision {
    /// The 2026-07-28 extension `io.modelcontextprotocol/tasks`.
    Mcp2026,
    /// The 2025-11-25 experimental design.
    Mcp2025,
}

impl From<TaskRevision> for Model {
    fn from(r: TaskRevision) -> Model {
        match r {
            TaskRevision::Mcp2026 => Model::Task2026,
            TaskRevision::Mcp2025 => Model::Task2025,
        }
    }
}

impl Model {
    /// The task revision, for a task model.
    #[must_use]
    pub const fn task_revision(self) -> Option<TaskRevision> {
        match self {
            Model::Task2026 => Some(TaskRevision::Mcp2026),
            Model::Task2025 => Some(TaskRevision::Mcp2025),
            Model::Job => None,
        }
    }
}

impl fmt::Display for Model {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Model {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Model::ALL
            .into_iter()
            .find(|m| m.as_str() == s)
            .ok_or_else(|| Error::UnknownModel { raw: s.into() })
    }
}
