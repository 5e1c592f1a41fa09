//! The job vocabulary, written once: what a `jobs_wait` waits for, how many ids it takes, and
//! the error codes of a job server's error envelope (`{"error":{"code":..}}`). The batch planner,
//! the wave, the wire codec, the reference job server, admission and the cancel rules all use
//! these; their old paths (`batch::WaitFor`, `server::MAX_WAIT_IDS`, `cancel::JobErrorCode`,
//! `admission::ErrorCode`, ...) re-export them.
//!
//! ```
//! use longcall::job_vocab::{JobErrorCode, WaitFor, MAX_WAIT_IDS};
//!
//! assert_eq!(WaitFor::default(), WaitFor::All);
//! assert_eq!(WaitFor::Any.as_str(), "any");
//! assert_eq!(MAX_WAIT_IDS, 20);
//! for &code in JobErrorCode::ALL {
//!     assert_eq!(JobErrorCode::parse(code.as_str()), code, "the spelling reads back");
//! }
//! assert_eq!(JobErrorCode::parse("teapot"), JobErrorCode::Other);
//! assert_eq!(JobErrorCode::parse(""), JobErrorCode::None);
//! ```

use serde::Serialize;

/// The most ids one `jobs_wait` call takes (B-1); a longer list is split into calls (B-2) by
/// the client and refused with `400 invalid_request` by the server (B-10).
pub const MAX_WAIT_IDS: usize = 20;

/// What a `jobs_wait` call waits for (B-1, B-3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WaitFor {
    /// Every id terminal (the job API's default).
    #[default]
    All,
    /// At least one id terminal.
    Any,
}

crate::tagged::unit_enum!(
    WaitFor,
    "enum WaitFor",
    [(WaitFor::All, "all"), (WaitFor::Any, "any")]
);

impl WaitFor {
    /// The wire spelling.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            WaitFor::All => "all",
            WaitFor::Any => "any",
        }
    }
}

/// Writes [`JobErrorCode`]'s `ALL`, [`JobErrorCode::parse`] and [`JobErrorCode::as_str`] from
/// one list of spellings.
macro_rules! job_error_codes {
    ($($(#[$doc:meta])* $variant:ident => $code:literal,)+) => {
        /// An error code of a job server's error envelope. Compare codes, never message text.
        /// Codes longcall does not know are [`JobErrorCode::Other`]; an answer without a code is
        /// [`JobErrorCode::None`].
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
        #[serde(rename_all = "snake_case")]
        #[non_exhaustive]
        pub enum JobErrorCode {
            $($(#[$doc])* $variant,)+
            /// No error code (a success, or an answer without an error body). Spelled `""`.
            #[default]
            None,
            /// Any other code. Spelled `other`.
            Other,
        }

        // serde spells `None` `none` (the wire's `""` is `as_str`'s). Any other string reads
        // as `parse` reads the wire: a code longcall does not know is `Other`, never an error,
        // so a server's new code cannot make an answer unreadable (C-22).
        impl<'de> serde::Deserialize<'de> for JobErrorCode {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let code = alloc::string::String::deserialize(d)?;
                Ok(if code == "none" { JobErrorCode::None } else { JobErrorCode::parse(&code) })
            }
        }

        impl JobErrorCode {
            /// Every code, in declaration order.
            pub const ALL: &'static [JobErrorCode] =
                &[$(JobErrorCode::$variant,)+ JobErrorCode::None, JobErrorCode::Other];

            /// Reads a wire error code: `""` is [`JobErrorCode::None`], an unknown code
            /// [`JobErrorCode::Other`].
            #[must_use]
            pub fn parse(code: &str) -> JobErrorCode {
                match code {
                    $($code => JobErrorCode::$variant,)+
                    "" => JobErrorCode::None,
                    _ => JobErrorCode::Other,
                }
            }

            /// The wire spelling (`""` for [`JobErrorCode::None`], `other` for
            /// [`JobErrorCode::Other`]).
            #[must_use]
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(JobErrorCode::$variant => $code,)+
                    JobErrorCode::None => "",
                    JobErrorCode::Other => "other",
                }
            }
        }
    };
}

job_error_codes! {
    /// 409 to a cancel: generation has started; the job runs to completion and bills (C-8).
    JobGenerationAlreadyStarted => "job_generation_already_started",
    /// 409 to a cancel: the job is terminal; nothing to cancel.
    JobNotCancelable => "job_not_cancelable",
    /// 404: unknown id, or another member's job (W-2).
    NotFound => "not_found",
    /// 429: a rate-limit bucket is empty; slow down.
    RateLimitExceeded => "rate_limit_exceeded",
    /// 429 to a submit: the workspace queue has no room.
    QueueFull => "queue_full",
    /// 402 to a submit: credits could not be reserved; no provider work started.
    InsufficientCredits => "insufficient_credits",
}
