//! `longcall check`: lint MCP task transcripts and job logs. This file only reads files and
//! shapes reports: the text goes to `longcall::endpoint::observer::check_text`, and every
//! finding is a violation the core's observer produced, with the rules it documents (E-40..E-51,
//! and the server gate's E-20..E-27 for client requests).
//!
//! Input formats (one JSON object per line, detected per file; `tests/traces/README.md`):
//!
//! * **MCP transcript**: `{"seq", "t_ms", "dir": "c2s"|"s2c", "http"?, "msg": <JSON-RPC message
//!   or null>}`. Lines whose `msg` is null are HTTP-only events and are skipped. On client
//!   requests, `http` carries `mcpMethod`, `mcpName` and `mcpProtocolVersion` (the request
//!   headers).
//! * **Job log**: `{"t_ms", "dir": "c2s"|"s2c", "http": {"method", "path", "status",
//!   "retry_after_ms"? | "retry_after"?}, "body": {...}}`. An `s2c` line answers the oldest `c2s`
//!   line not yet answered; `"http": {"status": 0}` means no answer arrived (a local timeout or a
//!   transport error). Paths: `POST /jobs` (submit, body carries `idempotency_key`),
//!   `GET /jobs/{id}`, `POST /jobs/{id}/cancel`, `POST /jobs/wait` (`{"job_ids": [...]}`,
//!   answered `{"jobs": [...]}`).

use longcall::endpoint::observer;
use longcall::{Level, Model};
use serde::Serialize;

pub use longcall::endpoint::observer::{Finding, Format, Note};

/// The result for one file.
#[derive(Clone, Debug, Serialize)]
pub struct FileReport {
    /// The path as given.
    pub file: String,
    /// Transcript or job log.
    pub format: Format,
    /// The model the file was read as.
    pub model: Model,
    /// What the model rests on (a header, a shape, `--revision`, ...).
    pub revision_basis: &'static str,
    /// Handles (tasks or jobs) seen.
    pub handles: usize,
    /// Violations, in line order.
    pub findings: Vec<Finding>,
    /// Notes.
    pub notes: Vec<Note>,
}

impl FileReport {
    /// True when a MUST was broken (or a SHOULD, with `strict`).
    pub fn fails(&self, strict: bool) -> bool {
        self.findings
            .iter()
            .any(|f| f.level == Level::Must || strict)
    }
}

/// Why a file could not be read at all (exit 2).
#[derive(Clone, Debug, Serialize)]
pub struct Unreadable {
    /// The path.
    pub file: String,
    /// Why.
    pub reason: String,
}

/// Checks one file from disk.
pub fn check_path(path: &str, revision: Option<Model>) -> Result<FileReport, Unreadable> {
    let text = std::fs::read_to_string(path).map_err(|e| Unreadable {
        file: path.into(),
        reason: format!("cannot read: {e}"),
    })?;
    check_text(path, &text, revision)
}

/// Checks the text of one file (`longcall::endpoint::observer::check_text`). `revision`
/// overrides MCP revision detection.
pub fn check_text(
    name: &str,
    text: &str,
    revision: Option<Model>,
) -> Result<FileReport, Unreadable> {
    let r = observer::check_text(text, revision).map_err(|e| Unreadable {
        file: name.into(),
        reason: match e {
            longcall::Error::Malformed { reason, .. } => reason,
            other => other.to_string(),
        },
    })?;
    Ok(FileReport {
        file: name.into(),
        format: r.format,
        model: r.model,
        revision_basis: r.revision_basis,
        handles: r.handles,
        findings: r.findings,
        notes: r.notes,
    })
}
