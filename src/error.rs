//! Errors (S-1): every variant has a stable machine-readable [`Error::code`] and a message a
//! person understands; text from a peer is quoted and cut short (S-2). No input, however
//! malformed, makes the core panic; it gets one of these, and the value that returned it stays
//! usable.

use alloc::string::String;
use core::fmt;

use thiserror::Error;

use crate::model::Model;
use crate::status::Status;
use crate::text::Text;

/// Everything that can go wrong when the core is handed bad input.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum Error {
    /// A model name that is not `task-2026`, `task-2025` or `job`.
    UnknownModel {
        /// The text as received.
        raw: String,
    },
    /// A status string that no model speaks. It is never read as "pending".
    UnknownStatus {
        /// The model the status was read for.
        model: Model,
        /// The text as received.
        raw: String,
    },
    /// A real status, but of another model (`canceled` for an MCP task, `working` for a job).
    StatusNotInModel {
        /// The model the status was read for.
        model: Model,
        /// The status received.
        status: Status,
    },
    /// A configuration value out of range.
    InvalidConfig {
        /// The field, as named in the configuration.
        field: String,
        /// What is wrong with it.
        reason: String,
    },
    /// An argument that does not make sense (an empty id, a batch with no ids, ...).
    InvalidInput {
        /// The argument or field.
        field: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A value of one model handed to a machine of another, or a model given to a function
    /// that takes another (a job model to `build_call`, which builds MCP task requests).
    WrongModel {
        /// The model the machine is, or the function takes.
        expected: Model,
        /// The model of what it was given.
        got: Model,
    },
    /// The cancel button was pressed in a state that does not allow it; nothing goes on the wire.
    CancelRefused {
        /// The button state at the time of the press.
        state: crate::cancel::ButtonState,
        /// Why the press does nothing.
        reason: &'static str,
    },
    /// A wire message that is not valid JSON or does not have the shape of any known message.
    Malformed {
        /// What was being read.
        what: &'static str,
        /// What was wrong.
        reason: String,
    },
    /// A wire message or field over a size limit.
    TooLarge {
        /// What was being read.
        what: &'static str,
        /// The limit.
        limit: usize,
        /// What was received.
        actual: usize,
    },
    /// JSON nested deeper than the reader allows.
    TooDeep {
        /// The nesting limit.
        limit: usize,
    },
    /// A snapshot of a version this build does not know.
    SnapshotVersion {
        /// The kind of state in the snapshot.
        kind: String,
        /// The version found.
        found: u64,
        /// The version this build reads.
        supported: u32,
    },
    /// A snapshot that cannot be read back.
    SnapshotInvalid {
        /// What was wrong.
        reason: String,
    },
    /// An id or key that must be unique was used again (a task id, an input-request key).
    Duplicate {
        /// What kind of id, in words (`task id`, `input key`).
        what: &'static str,
        /// The id as given.
        id: String,
    },
    /// A configured limit would be exceeded (tasks per principal, ...).
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

    /// This error with its configuration field named from an enclosing configuration
    /// (`poll.cap_ms`, not `cap_ms`), so a nested policy's refusal says where to look. Other
    /// errors come back as they are.
    #[must_use]
    pub fn within(self, parent: &str) -> Error {
        match self {
            Error::InvalidConfig { field, reason } => {
                let mut path = String::from(parent);
                path.push('.');
                path.push_str(&field);
                Error::InvalidConfig {
                    field: path,
                    reason,
                }
            }
            other => other,
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

impl fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&Text::new().q(self.0).done())
    }
}

impl Error {
    /// The message a person reads (also this error's `Display`). It is built without
    /// `core::fmt`, so a build that only needs messages does not link the formatter.
    #[must_use]
    pub fn message(&self) -> String {
        let t = Text::new();
        match self {
            Error::UnknownModel { raw } => t
                .s("unknown model ")
                .q(raw)
                .s(": expected \"task-2026\", \"task-2025\" or \"job\""),
            Error::UnknownStatus { model, raw } => {
                t.s("unknown ").s(model.as_str()).s(" status ").q(raw)
            }
            Error::StatusNotInModel { model, status } => t
                .s("status \"")
                .s(status.as_str())
                .s("\" does not belong to the ")
                .s(model.as_str())
                .s(" model"),
            Error::InvalidConfig { field, reason } => {
                t.s("invalid configuration: ").s(field).s(": ").s(reason)
            }
            Error::InvalidInput { field, reason } => {
                t.s("invalid input: ").s(field).s(": ").s(reason)
            }
            // Read the same whichever side is the machine: a job input to a task tracker, or
            // the job model given to a function of task requests (`buildCall`).
            Error::WrongModel { expected, got } => t
                .s("wrong model: expected ")
                .s(expected.as_str())
                .s(", got ")
                .s(got.as_str()),
            Error::CancelRefused { state, reason } => t
                .s("cancel refused while the button is ")
                .s(state.as_str())
                .s(": ")
                .s(reason),
            Error::Malformed { what, reason } => t.s("malformed ").s(what).s(": ").s(reason),
            Error::TooLarge {
                what,
                limit,
                actual,
            } => t
                .s(what)
                .s(" is too large: ")
                .n(*actual as u64)
                .s(" > ")
                .n(*limit as u64),
            Error::TooDeep { limit } => t
                .s("JSON nested deeper than ")
                .n(*limit as u64)
                .s(" levels"),
            Error::SnapshotVersion {
                kind,
                found,
                supported,
            } => t
                .s("snapshot of ")
                .s(kind)
                .s(" has version ")
                .n(*found)
                .s("; this build reads version ")
                .n(u64::from(*supported)),
            Error::SnapshotInvalid { reason } => t.s("invalid snapshot: ").s(reason),
            Error::Duplicate { what, id } => t
                .s("duplicate ")
                .s(what)
                .s(": ")
                .q(id)
                .s(" is already in use"),
            Error::LimitReached { what, limit } => t
                .s("limit reached: ")
                .s(what)
                .s(" is at most ")
                .n(*limit as u64),
        }
        .done()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::format;

    /// Every variant's message, against the same text written with `format!` (the spelling
    /// these messages had while `thiserror` wrote them): [`Error::message`] builds them from
    /// pieces, and a piece out of place shows here.
    #[test]
    fn messages_read_as_format_would_write_them() {
        use crate::cancel::ButtonState;
        let q = |s: &str| format!("{}", Quoted(s));
        let long = "\u{1}".repeat(70);
        let cases = [
            (
                Error::UnknownModel { raw: long.clone() },
                format!(
                    "unknown model {}: expected \"task-2026\", \"task-2025\" or \"job\"",
                    q(&long)
                ),
            ),
            (
                Error::UnknownStatus {
                    model: Model::Task2025,
                    raw: "x\"y".into(),
                },
                format!("unknown {} status {}", Model::Task2025, q("x\"y")),
            ),
            (
                Error::StatusNotInModel {
                    model: Model::Task2026,
                    status: Status::Canceled,
                },
                format!(
                    "status \"{}\" does not belong to the {} model",
                    Status::Canceled,
                    Model::Task2026
                ),
            ),
            (
                Error::invalid_config("cap_ms", "too small"),
                "invalid configuration: cap_ms: too small".into(),
            ),
            (
                Error::invalid_input("id", "empty"),
                "invalid input: id: empty".into(),
            ),
            (
                Error::WrongModel {
                    expected: Model::Job,
                    got: Model::Task2026,
                },
                "wrong model: expected job, got task-2026".into(),
            ),
            (
                Error::CancelRefused {
                    state: ButtonState::TooLate,
                    reason: "it runs",
                },
                format!(
                    "cancel refused while the button is {}: it runs",
                    ButtonState::TooLate
                ),
            ),
            (
                Error::Malformed {
                    what: "answer",
                    reason: "not JSON".into(),
                },
                "malformed answer: not JSON".into(),
            ),
            (
                Error::TooLarge {
                    what: "answer",
                    limit: 1_048_576,
                    actual: usize::MAX,
                },
                format!("answer is too large: {} > 1048576", usize::MAX),
            ),
            (
                Error::TooDeep { limit: 64 },
                "JSON nested deeper than 64 levels".into(),
            ),
            (
                Error::SnapshotVersion {
                    kind: "tracker".into(),
                    found: u64::MAX,
                    supported: 1,
                },
                format!(
                    "snapshot of tracker has version {}; this build reads version 1",
                    u64::MAX
                ),
            ),
            (
                Error::SnapshotInvalid {
                    reason: "no model".into(),
                },
                "invalid snapshot: no model".into(),
            ),
            (
                Error::Duplicate {
                    what: "task id",
                    id: "t\n1".into(),
                },
                format!("duplicate task id: {} is already in use", q("t\n1")),
            ),
            (
                Error::LimitReached {
                    what: "max_tasks",
                    limit: 0,
                },
                "limit reached: max_tasks is at most 0".into(),
            ),
        ];
        assert_eq!(cases.len(), ERROR_CODES.len(), "one case per variant");
        for (error, expected) in cases {
            assert_eq!(error.message(), expected, "{}", error.code());
            assert_eq!(format!("{error}"), expected);
        }
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
