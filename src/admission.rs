//! Admission: what a submit answer means and what to do next (area A of `docs/rules.md`).
//!
//! Rules, written once:
//!
//! 1. **Queue-first** (A-1). A 2xx submit answer is [`Advice::Accepted`], even when the job is
//!    `queued`: queued is a normal state waiting for a concurrency slot, not an error. Watch
//!    the handle.
//! 2. **`queue_full` is recognised by its error code, whatever the HTTP status** (A-2) (we expect
//!    429 with code `queue_full`; a plain 429, or 429 `rate_limit_exceeded`, is a rate limit).
//!    Advice: poll existing jobs, cancel queued jobs no longer needed, then retry the submit
//!    **with the same idempotency key** once capacity opens ([`Advice::QueueFull`]).
//! 3. **429** (A-3; or code `rate_limit_exceeded` on any 4xx/5xx): wait at least `Retry-After`,
//!    then retry with the same key ([`Advice::RetryAfter`]).
//! 4. **Permanent** (A-4, [`Advice::Permanent`]): 402 or code `insufficient_credits` (no provider
//!    work started), 401, 403, 404 / code `not_found`, and every other 4xx. Do not retry
//!    unchanged.
//! 5. **5xx** and 408 (A-5) (the server did not finish reading the request; our choice): back off
//!    and retry with the same key ([`Advice::Backoff`]), honouring a `Retry-After` if one came.
//! 6. **No answer is not a "no"** (A-6). A local timeout, a transport error, a lost response, or a
//!    status the table does not know (1xx, 3xx, ≥ 600): the job may exist. **Never resubmit.**
//!    Watch the handle if you have it; otherwise reconcile by repeating the submit with the
//!    **same** idempotency key (the server answers with the job it already has). For an MCP
//!    `tools/call` there is no idempotency key: a lost `CreateTaskResult` must not lead to a
//!    blind repeat of a mutating tool call ([`mcp_create_lost`]). [`Advice::Reconcile`].
//!
//! There is no "resubmit" advice (A-7): every retry this module allows reuses the original
//! idempotency key, so it can never create a second paid job.
//!
//! The table [`TABLE`] is the data: the first row that matches an answer decides. Classifying
//! allocates nothing.
//!
//! ```
//! use longcall::admission::{classify, Advice, ErrorCode, SubmitAnswer, Submitted};
//! let full = SubmitAnswer { http_status: 429, error_code: ErrorCode::parse("queue_full"), retry_after_ms: None };
//! assert_eq!(classify(&Submitted::Answer(full)), Advice::QueueFull { not_before_ms: None });
//! assert_eq!(classify(&Submitted::LocalTimeout), Advice::Reconcile);
//! ```

use serde::{Deserialize, Serialize};

/// The error code of a job server's error envelope, as admission reads it (one definition,
/// [`crate::job_vocab::JobErrorCode`]).
pub use crate::job_vocab::JobErrorCode as ErrorCode;

/// A submit answer that arrived: the HTTP status, the error code of its body (if any) and its
/// `Retry-After` converted to ms by the host.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct SubmitAnswer {
    /// The HTTP status.
    pub http_status: u16,
    /// The error code of the body ([`ErrorCode::None`] if there is none).
    pub error_code: ErrorCode,
    /// `Retry-After`, in ms (seconds × 1000, or an HTTP-date minus now, on the host).
    pub retry_after_ms: Option<u64>,
}

// Read member by member from a `Value` object (`crate::tagged`): a derived reader would also
// compile an array form nobody writes.
impl<'de> Deserialize<'de> for SubmitAnswer {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut f = crate::tagged::members(d, "struct SubmitAnswer")?;
        Ok(SubmitAnswer {
            http_status: f.req("http_status")?,
            error_code: f.req("error_code")?,
            retry_after_ms: f.opt("retry_after_ms")?,
        })
    }
}

/// What happened to a submit request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Submitted {
    /// An answer arrived.
    Answer(SubmitAnswer),
    /// The host gave up waiting for the answer: the request may have been accepted.
    LocalTimeout,
    /// The connection failed or the answer was lost or unreadable: the request may have been
    /// accepted.
    TransportError,
}

/// Why a submit will not succeed by retrying it unchanged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum PermanentReason {
    /// 402 / `insufficient_credits`: add credits first; nothing was started or billed.
    InsufficientCredits,
    /// 401: the key is missing, bad or revoked.
    Unauthorized,
    /// 403: the key is valid but the workspace lacks access.
    Forbidden,
    /// 404 / `not_found`.
    NotFound,
    /// Any other 4xx: the request itself is wrong.
    Rejected,
}

crate::tagged::unit_enum!(
    PermanentReason,
    "enum PermanentReason",
    [
        (PermanentReason::InsufficientCredits, "insufficient_credits"),
        (PermanentReason::Unauthorized, "unauthorized"),
        (PermanentReason::Forbidden, "forbidden"),
        (PermanentReason::NotFound, "not_found"),
        (PermanentReason::Rejected, "rejected"),
    ]
);

/// What to do after a submit. There is deliberately no "resubmit": every retry reuses the
/// original idempotency key. Serialized with an `advice` tag:
/// `{"advice":"retry_after","not_before_ms":30000}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "advice", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Advice {
    /// Accepted (`queued` is normal, not an error): watch the handle.
    Accepted,
    /// `queue_full`: poll existing jobs, cancel queued jobs no longer needed, and retry with
    /// the **same** idempotency key once capacity opens (not before `not_before_ms`).
    QueueFull {
        /// `Retry-After` in ms, relative to when the answer arrived, if the server sent one.
        not_before_ms: Option<u64>,
    },
    /// 429: wait at least `Retry-After`, then retry with the **same** idempotency key.
    RetryAfter {
        /// `Retry-After` in ms, relative to when the answer arrived; `None` if the header was
        /// missing (then back off with the host's own schedule).
        not_before_ms: Option<u64>,
    },
    /// 5xx (and 408): retry with the **same** idempotency key after a backoff, no earlier
    /// than `Retry-After` if one came.
    Backoff {
        /// `Retry-After` in ms, relative to when the answer arrived, if the server sent one.
        not_before_ms: Option<u64>,
    },
    /// Retrying unchanged will not help.
    Permanent {
        /// Why.
        reason: PermanentReason,
    },
    /// The outcome is unknown (local timeout, lost answer, unknown status). **Never
    /// resubmit.** Watch the handle if you have it; else reconcile with the **same**
    /// idempotency key. Over MCP, where there is no key, never repeat a mutating tool call
    /// blindly: ask the user or look the work up by other means.
    Reconcile,
}

impl Advice {
    /// The stable name of the advice (the `advice` tag).
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Advice::Accepted => "accepted",
            Advice::QueueFull { .. } => "queue_full",
            Advice::RetryAfter { .. } => "retry_after",
            Advice::Backoff { .. } => "backoff",
            Advice::Permanent { .. } => "permanent",
            Advice::Reconcile => "reconcile",
        }
    }

    /// True for [`Advice::Permanent`].
    #[must_use]
    pub const fn is_permanent(self) -> bool {
        matches!(self, Advice::Permanent { .. })
    }

    /// The relative `Retry-After` the advice carries, if any.
    #[must_use]
    pub const fn not_before_ms(self) -> Option<u64> {
        match self {
            Advice::QueueFull { not_before_ms }
            | Advice::RetryAfter { not_before_ms }
            | Advice::Backoff { not_before_ms } => not_before_ms,
            _ => None,
        }
    }

    /// The same advice carrying `retry_after_ms` where the variant has room for it.
    const fn with_retry_after(self, retry_after_ms: Option<u64>) -> Advice {
        match self {
            Advice::QueueFull { .. } => Advice::QueueFull {
                not_before_ms: retry_after_ms,
            },
            Advice::RetryAfter { .. } => Advice::RetryAfter {
                not_before_ms: retry_after_ms,
            },
            Advice::Backoff { .. } => Advice::Backoff {
                not_before_ms: retry_after_ms,
            },
            other => other,
        }
    }
}

/// Which HTTP statuses a row matches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StatusMatch {
    /// Every status.
    Any,
    /// Exactly this status.
    Is(u16),
    /// `lo..=hi`.
    Range(u16, u16),
}

impl StatusMatch {
    /// Whether `status` matches.
    #[must_use]
    pub const fn matches(self, status: u16) -> bool {
        match self {
            StatusMatch::Any => true,
            StatusMatch::Is(s) => s == status,
            StatusMatch::Range(lo, hi) => lo <= status && status <= hi,
        }
    }
}

/// Which error codes a row matches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CodeMatch {
    /// Every code.
    Any,
    /// Exactly this code.
    Is(ErrorCode),
}

impl CodeMatch {
    /// Whether `code` matches.
    #[must_use]
    pub fn matches(self, code: ErrorCode) -> bool {
        match self {
            CodeMatch::Any => true,
            CodeMatch::Is(c) => c == code,
        }
    }
}

/// One row of the admission table: an answer matching `status` and `code` gets `advice`
/// (with the answer's `Retry-After` filled in where the advice carries one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Row {
    /// The HTTP statuses this row covers.
    pub status: StatusMatch,
    /// The error codes this row covers.
    pub code: CodeMatch,
    /// The advice (its `not_before_ms` is a placeholder filled from the answer).
    pub advice: Advice,
}

const fn row(status: StatusMatch, code: CodeMatch, advice: Advice) -> Row {
    Row {
        status,
        code,
        advice,
    }
}

const QUEUE_FULL: Advice = Advice::QueueFull {
    not_before_ms: None,
};
const RETRY_AFTER: Advice = Advice::RetryAfter {
    not_before_ms: None,
};
const BACKOFF: Advice = Advice::Backoff {
    not_before_ms: None,
};
const fn permanent(reason: PermanentReason) -> Advice {
    Advice::Permanent { reason }
}

/// The admission table, in order: the first matching row decides (rules in the module
/// comment). The last row matches everything, so every answer has an advice.
pub const TABLE: &[Row] = {
    use CodeMatch as C;
    use ErrorCode as E;
    use PermanentReason as P;
    use StatusMatch as S;
    &[
        // Rule 2: queue_full by its code, whatever the status.
        row(S::Any, C::Is(E::QueueFull), QUEUE_FULL),
        // Rule 1: accepted, queued included.
        row(S::Range(200, 299), C::Any, Advice::Accepted),
        // Rule 4: credits.
        row(
            S::Range(400, 599),
            C::Is(E::InsufficientCredits),
            permanent(P::InsufficientCredits),
        ),
        row(S::Is(402), C::Any, permanent(P::InsufficientCredits)),
        // Rule 3: rate limits.
        row(S::Is(429), C::Any, RETRY_AFTER),
        row(S::Range(400, 599), C::Is(E::RateLimitExceeded), RETRY_AFTER),
        // Rule 4: the rest of the 4xx.
        row(S::Is(401), C::Any, permanent(P::Unauthorized)),
        row(S::Is(403), C::Any, permanent(P::Forbidden)),
        row(S::Is(404), C::Any, permanent(P::NotFound)),
        row(
            S::Range(400, 499),
            C::Is(E::NotFound),
            permanent(P::NotFound),
        ),
        // Rule 5: 408 is transient (our choice).
        row(S::Is(408), C::Any, BACKOFF),
        row(S::Range(400, 499), C::Any, permanent(P::Rejected)),
        // Rule 5: server errors.
        row(S::Range(500, 599), C::Any, BACKOFF),
        // Rule 6: anything else (1xx, 3xx, >= 600): the outcome is unknown.
        row(S::Any, C::Any, Advice::Reconcile),
    ]
};

/// Classifies what happened to a submit (rules in the module comment). Allocates nothing.
///
/// Call once per submit attempt, when its answer arrives or the host gives up on it.
///
/// ```
/// use longcall::admission::{classify, Advice, ErrorCode, PermanentReason, SubmitAnswer, Submitted};
/// let answer = |http_status, code: &str, retry_after_ms| {
///     Submitted::Answer(SubmitAnswer { http_status, error_code: ErrorCode::parse(code), retry_after_ms })
/// };
/// assert_eq!(classify(&answer(202, "", None)), Advice::Accepted);
/// assert_eq!(classify(&answer(429, "rate_limit_exceeded", Some(30_000))),
///            Advice::RetryAfter { not_before_ms: Some(30_000) });
/// assert_eq!(classify(&answer(402, "insufficient_credits", None)),
///            Advice::Permanent { reason: PermanentReason::InsufficientCredits });
/// assert_eq!(classify(&answer(503, "", None)), Advice::Backoff { not_before_ms: None });
/// assert_eq!(classify(&Submitted::TransportError), Advice::Reconcile);
/// ```
#[must_use]
pub fn classify(submitted: &Submitted) -> Advice {
    match submitted {
        Submitted::LocalTimeout | Submitted::TransportError => Advice::Reconcile,
        Submitted::Answer(answer) => classify_answer(answer),
    }
}

/// Classifies an answer that arrived: the first row of [`TABLE`] that matches it.
#[must_use]
pub fn classify_answer(answer: &SubmitAnswer) -> Advice {
    TABLE
        .iter()
        .find(|r| r.status.matches(answer.http_status) && r.code.matches(answer.error_code))
        .map_or(Advice::Reconcile, |r| {
            r.advice.with_retry_after(answer.retry_after_ms)
        })
}

/// The advice when an MCP `CreateTaskResult` (the task handle) was lost in transit, or the
/// `tools/call` timed out before it arrived: [`Advice::Reconcile`]. The tasks extension offers
/// no idempotency key and no exactly-once receipt, so the call must not be repeated blindly:
/// a mutating tool may already be running. Surface it to the user (or a host policy that knows
/// the tool is safe to repeat) instead.
#[must_use]
pub const fn mcp_create_lost() -> Advice {
    Advice::Reconcile
}

// Read through `crate::tagged`, not serde's derived internally tagged support: the same JSON,
// far less WebAssembly.
impl<'de> Deserialize<'de> for Submitted {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        const VARIANTS: &[&str] = &["answer", "local_timeout", "transport_error"];
        let (tag, f) = crate::tagged::read(d, "kind", "internally tagged enum Submitted")?;
        Ok(match tag.as_str() {
            "answer" => Submitted::Answer(f.rest()?),
            "local_timeout" => Submitted::LocalTimeout,
            "transport_error" => Submitted::TransportError,
            other => return Err(crate::tagged::unknown(other, VARIANTS)),
        })
    }
}

impl<'de> Deserialize<'de> for Advice {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        const VARIANTS: &[&str] = &[
            "accepted",
            "queue_full",
            "retry_after",
            "backoff",
            "permanent",
            "reconcile",
        ];
        let (tag, mut f) = crate::tagged::read(d, "advice", "internally tagged enum Advice")?;
        Ok(match tag.as_str() {
            "accepted" => Advice::Accepted,
            "queue_full" => Advice::QueueFull {
                not_before_ms: f.opt("not_before_ms")?,
            },
            "retry_after" => Advice::RetryAfter {
                not_before_ms: f.opt("not_before_ms")?,
            },
            "backoff" => Advice::Backoff {
                not_before_ms: f.opt("not_before_ms")?,
            },
            "permanent" => Advice::Permanent {
                reason: f.req("reason")?,
            },
            "reconcile" => Advice::Reconcile,
            other => return Err(crate::tagged::unknown(other, VARIANTS)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    const CODES: [ErrorCode; 6] = [
        ErrorCode::QueueFull,
        ErrorCode::InsufficientCredits,
        ErrorCode::RateLimitExceeded,
        ErrorCode::NotFound,
        ErrorCode::None,
        ErrorCode::Other,
    ];

    fn answer(http_status: u16, error_code: ErrorCode, retry_after_ms: Option<u64>) -> Submitted {
        Submitted::Answer(SubmitAnswer {
            http_status,
            error_code,
            retry_after_ms,
        })
    }

    /// Representative statuses of a row's status match.
    fn statuses(m: StatusMatch) -> Vec<u16> {
        match m {
            StatusMatch::Any => [0, 100, 200, 302, 400, 429, 500, 599, 600, u16::MAX].into(),
            StatusMatch::Is(s) => [s].into(),
            StatusMatch::Range(lo, hi) => [lo, lo + (hi - lo) / 2, hi].into(),
        }
    }

    /// Every row decides at least one input, and for every input a row covers, classify gives
    /// the first covering row's advice with the Retry-After filled in.
    ///
    /// Rules A-1, A-2, A-3, A-4, A-5.
    #[test]
    fn every_row() {
        for (i, r) in TABLE.iter().enumerate() {
            let codes: Vec<ErrorCode> = match r.code {
                CodeMatch::Any => CODES.into(),
                CodeMatch::Is(c) => [c].into(),
            };
            let mut decided = 0;
            for s in statuses(r.status) {
                for &c in &codes {
                    assert!(r.status.matches(s) && r.code.matches(c));
                    let first = TABLE
                        .iter()
                        .position(|x| x.status.matches(s) && x.code.matches(c))
                        .unwrap();
                    for ra in [None, Some(0), Some(7_000), Some(u64::MAX)] {
                        let got = classify(&answer(s, c, ra));
                        let want = TABLE[first].advice.with_retry_after(ra);
                        assert_eq!(got, want, "row {i}: {s} {c:?} {ra:?}");
                    }
                    if first == i {
                        decided += 1;
                    }
                }
            }
            assert!(decided > 0, "row {i} is shadowed by earlier rows: {r:?}");
        }
        // The last row catches everything.
        let last = TABLE.last().unwrap();
        assert_eq!((last.status, last.code), (StatusMatch::Any, CodeMatch::Any));
    }

    /// Rules A-2, A-4, A-5, A-6.
    #[test]
    fn submit_answers_as_the_job_api_describes() {
        use Advice as A;
        use ErrorCode as E;
        use PermanentReason as P;
        let p = |reason| A::Permanent { reason };
        let cases = [
            (201, E::None, None, A::Accepted),
            (200, E::None, None, A::Accepted),
            (
                429,
                E::QueueFull,
                Some(5000),
                A::QueueFull {
                    not_before_ms: Some(5000),
                },
            ),
            (
                503,
                E::QueueFull,
                None,
                A::QueueFull {
                    not_before_ms: None,
                },
            ),
            (
                200,
                E::QueueFull,
                None,
                A::QueueFull {
                    not_before_ms: None,
                },
            ),
            (
                429,
                E::None,
                Some(1000),
                A::RetryAfter {
                    not_before_ms: Some(1000),
                },
            ),
            (
                429,
                E::RateLimitExceeded,
                None,
                A::RetryAfter {
                    not_before_ms: None,
                },
            ),
            (402, E::InsufficientCredits, None, p(P::InsufficientCredits)),
            (402, E::None, None, p(P::InsufficientCredits)),
            (400, E::InsufficientCredits, None, p(P::InsufficientCredits)),
            (401, E::Other, None, p(P::Unauthorized)),
            (403, E::Other, None, p(P::Forbidden)),
            (404, E::NotFound, None, p(P::NotFound)),
            (410, E::NotFound, None, p(P::NotFound)),
            (400, E::Other, None, p(P::Rejected)),
            (409, E::Other, None, p(P::Rejected)),
            (422, E::None, None, p(P::Rejected)),
            (
                408,
                E::None,
                None,
                A::Backoff {
                    not_before_ms: None,
                },
            ),
            (
                500,
                E::None,
                None,
                A::Backoff {
                    not_before_ms: None,
                },
            ),
            (
                503,
                E::Other,
                Some(2000),
                A::Backoff {
                    not_before_ms: Some(2000),
                },
            ),
            (302, E::None, None, A::Reconcile),
            (100, E::None, None, A::Reconcile),
            (0, E::None, None, A::Reconcile),
            (600, E::Other, None, A::Reconcile),
        ];
        for (s, c, ra, want) in cases {
            assert_eq!(classify(&answer(s, c, ra)), want, "{s} {c:?}");
        }
        assert_eq!(classify(&Submitted::LocalTimeout), A::Reconcile);
        assert_eq!(classify(&Submitted::TransportError), A::Reconcile);
        assert_eq!(mcp_create_lost(), A::Reconcile);
    }

    #[test]
    fn every_status_every_code_classifies() {
        for s in 0..=u16::MAX {
            for c in CODES {
                let a = classify(&answer(s, c, Some(1)));
                if (200..300).contains(&s) && c != ErrorCode::QueueFull {
                    assert_eq!(a, Advice::Accepted);
                }
                if a.is_permanent() {
                    assert!((400..600).contains(&s), "{s} {c:?}");
                }
            }
        }
    }

    #[test]
    fn error_code_parse_round_trip() {
        for &c in ErrorCode::ALL {
            if c != ErrorCode::Other {
                assert_eq!(ErrorCode::parse(c.as_str()), c);
            }
        }
        assert_eq!(ErrorCode::parse("QUEUE_FULL"), ErrorCode::Other);
    }

    /// The cancel answers' codes are in the same vocabulary; on a submit answer they decide
    /// nothing more than an unknown code would (A-1).
    #[test]
    fn cancel_codes_admit_like_unknown_codes() {
        for s in [200, 400, 404, 409, 429, 500, 503, 600] {
            for c in [
                ErrorCode::JobGenerationAlreadyStarted,
                ErrorCode::JobNotCancelable,
            ] {
                assert_eq!(
                    classify(&answer(s, c, Some(1))),
                    classify(&answer(s, ErrorCode::Other, Some(1))),
                    "{s} {c:?}"
                );
            }
        }
    }

    #[test]
    fn serde_spelling() {
        let json = |a: Advice| serde_json::to_string(&a).unwrap();
        assert_eq!(json(Advice::Accepted), r#"{"advice":"accepted"}"#);
        assert_eq!(
            json(Advice::RetryAfter {
                not_before_ms: Some(30_000)
            }),
            r#"{"advice":"retry_after","not_before_ms":30000}"#
        );
        assert_eq!(
            json(Advice::Permanent {
                reason: PermanentReason::InsufficientCredits
            }),
            r#"{"advice":"permanent","reason":"insufficient_credits"}"#
        );
        assert_eq!(json(Advice::Reconcile), r#"{"advice":"reconcile"}"#);
        for a in TABLE.iter().map(|r| r.advice.with_retry_after(Some(5))) {
            let text = json(a);
            assert!(!text.contains("resubmit"));
            assert_eq!(serde_json::from_str::<Advice>(&text).unwrap(), a);
            assert!(text.contains(a.as_str()));
        }
        let s = Submitted::Answer(SubmitAnswer {
            http_status: 429,
            error_code: ErrorCode::QueueFull,
            retry_after_ms: None,
        });
        let text = serde_json::to_string(&s).unwrap();
        assert_eq!(
            text,
            r#"{"kind":"answer","http_status":429,"error_code":"queue_full","retry_after_ms":null}"#
        );
        assert_eq!(serde_json::from_str::<Submitted>(&text).unwrap(), s);
        assert_eq!(
            serde_json::to_string(&Submitted::LocalTimeout).unwrap(),
            r#"{"kind":"local_timeout"}"#
        );
    }
}
