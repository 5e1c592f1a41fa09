//! Errors (S-1): every variant has a stable machine-readable [`Error::code`] and a message a
//! person understands; text from a peer is quoted and cut short (S-2). No input, however
//! malformed, makes the core panic; it gets one of these, and the value that returned it stays
//! usable.

use alloc::string::String;
use core::fmt;

use thiserror::Error;

use crate::model::Model;
use crate::status::Status;

/// Everything that can go wrong when the core is handed bad input.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum Error {
    /// A model name that is not `task-2026`, `task-2025` or `job`.
    #[error("unknown model {}: expected \"task-2026\", \"task-2025\" or \"job\"", Quoted(.raw))]
    UnknownModel {
        /// The text as received.
        raw: String,
    },
    /// A status string that no model speaks. It is never read as "pending".
    #[error("unknown {model} status {}", Quoted(.raw))]
    UnknownStatus {
        /// The model the status was read for.
        model: Model,
        /// The text as received.
        raw: String,
    },
    /// A real status, but of another model (`canceled` for an MCP task, `working` for a job).
    #[error("status \"{status}\" does not belong to the {model} model")]
    StatusNotInModel {
        /// The model the status was read for.
        model: Model,
        /// The status received.
        status: Status,
    },
    /// A configuration value out of range.
    #[error("invalid configuration: {field}: {reason}")]
    InvalidConfig {
        /// The field, as named in the configuration.
        field: String,
        /// What is wrong with it.
        reason: String,
    },
    /// An argument that does not make sense (an empty id, a batch with no ids, ...).
    #[error("invalid input: {field}: {reason}")]
    InvalidInput {
        /// The argument or field.
        field: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A value of one model handed to a machine of another.
    #[error("this {expected} machine cannot take input of the {got} model")]
    WrongModel {
        /// The machine's model.
        expected: Model,
        /// The input's model.
        got: Model,
    },
    /// The cancel button was pressed in a state that does not allow it; nothing goes on the wire.
    #[error("cancel refused while the button is {state}: {reason}")]
    CancelRefused {
        /// The button state at the time of the press.
        state: crate::cancel::ButtonState,
        /// Why the press does nothing.
        reason: &'static str,
    },
    /// A wire message that is not valid JSON or does not have the shape of any known message.
    #[error("malformed {what}: {reason}")]
    Malformed {
        /// What was being read.
        what: &'static str,
        /// What was wrong.
        reason: String,
    },
    /// A wire message or field over a size limit.
    #[error("{what} is too large: {actual} > {limit}")]
    TooLarge {
        /// What was being read.
        what: &'static str,
        /// The limit.
        limit: usize,
        /// What was received.
        actual: usize,
    },
    /// JSON nested deeper than the reader allows.
    #[error("JSON nested deeper than {limit} levels")]
    TooDeep {
        /// The nesting limit.
        limit: usize,
    },
    /// A snapshot of a version this build does not know.
    #[error("snapshot of {kind} has version {found}; this build reads version {supported}")]
    SnapshotVersion {
        /// The kind of state in the snapshot.
        kind: String,
        /// The version found.
        found: u64,
        /// The version this build reads.
        supported: u32,
    },
    /// A snapshot that cannot be read back.
    #[error("invalid snapshot: {reason}")]
    SnapshotInvalid {
        /// What was wrong.
        reason: String,
    },
    /// An id or key that must be unique was used again (a task id, an input-request key).
    #[error("duplicate {what}: {} is already in use", Quoted(.id))]
    Duplicate {
        /// What kind of id (`task_id`, `input_key`).
        what: &'static str,
        /// The id as given.
        id: String,
    },
    /// A configured limit would be exceeded (tasks per principal, ...).
    #[error("limit reached: {what} is at most {limit}")]
    LimitReached {
        /// The limit, as named in the configuration.
        what: &'static str,
        /// Its value.
        limit: usize,
    },
}

/// Declares [`Error::code`] and [`ERROR_CODES`] from one list, so the two cannot disagree (the
/// match is exhaustive: a new variant without a code does not compile).
macro_rules! error_codes {
    ($($variant:ident => $code:literal,)*) => {
        impl Error {
            /// The stable machine-readable code of this error (also the `code` of a JavaScript error).
            pub const fn code(&self) -> &'static str {
                match self {
                    $(Error::$variant { .. } => $code,)*
                }
            }
        }

        /// Every error code, for documentation and for hosts that switch on codes.
        pub const ERROR_CODES: &[&str] = &[$($code,)*];
    };
}

error_codes! {
    UnknownModel => "unknown_model",
    UnknownStatus => "unknown_status",
    StatusNotInModel => "status_not_in_model",
    InvalidConfig => "invalid_config",
    InvalidInput => "invalid_input",
    WrongModel => "wrong_model",
    CancelRefused => "cancel_refused",
    Malformed => "malformed",
    TooLarge => "too_large",
    TooDeep => "too_deep",
    SnapshotVersion => "snapshot_version",
    SnapshotInvalid => "snapshot_invalid",
    Duplicate => "duplicate",
    LimitReached => "limit_reached",
}

impl Error {
    /// Shorthand for [`Error::InvalidInput`].
    #[must_use]
    pub fn invalid_input(field: &str, reason: &str) -> Error {
        Error::InvalidInput {
            field: field.into(),
            reason: reason.into(),
        }
    }

    /// Shorthand for [`Error::InvalidConfig`].
    #[must_use]
    pub fn invalid_config(field: &str, reason: &str) -> Error {
        Error::InvalidConfig {
            field: field.into(),
            reason: reason.into(),
        }
    }
}

/// Text from outside quoted for a message: escaped, and cut short, so a hostile 10 MB string
/// makes a short message (and no Unicode tables are needed, unlike `{:?}`).
pub(crate) struct Quoted<'a>(pub &'a str);

/// An optional outside string: [`Quoted`], or `none` when absent.
pub(crate) struct QuotedOpt<'a>(pub Option<&'a str>);

impl fmt::Display for QuotedOpt<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(s) => Quoted(s).fmt(f),
            None => f.write_str("none"),
        }
    }
}

/// How many characters of an outside string a message shows.
const QUOTE_LIMIT: usize = 64;

impl fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("\"")?;
        for (i, c) in self.0.chars().enumerate() {
            if i == QUOTE_LIMIT {
                return f.write_str("\u{2026}\"");
            }
            match c {
                '"' => f.write_str("\\\"")?,
                '\\' => f.write_str("\\\\")?,
                c if (c as u32) < 0x20 || c == '\u{7f}' => write!(f, "\\u{{{:x}}}", c as u32)?,
                c => fmt::Write::write_char(f, c)?,
            }
        }
        f.write_str("\"")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::format;

    /// Rules S-2.
    #[test]
    fn quoted_escapes_and_cuts() {
        assert_eq!(format!("{}", Quoted("a\"b\\c\n")), r#""a\"b\\c\u{a}""#);
        let long = "x".repeat(100);
        let q = format!("{}", Quoted(&long));
        assert_eq!(q.chars().count(), 64 + 3);
        assert!(q.ends_with("\u{2026}\""));
    }

    #[test]
    fn messages_name_statuses_by_wire_spelling() {
        let e = Error::StatusNotInModel {
            model: Model::Job,
            status: Status::InputRequired,
        };
        assert_eq!(
            format!("{e}"),
            "status \"input_required\" does not belong to the job model"
        );
        let e = Error::UnknownStatus {
            model: Model::Job,
            raw: "pend\ning".into(),
        };
        assert_eq!(format!("{e}"), "unknown job status \"pend\\u{a}ing\"");
    }
}
