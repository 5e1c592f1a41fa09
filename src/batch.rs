//! Batch waits: which ids go in which `jobs_wait` call (area B of `docs/rules.md`).
//!
//! Rules, written once:
//!
//! 1. (B-1) One `jobs_wait` call takes 1 to [`MAX_IDS_PER_WAIT`] ids, `wait_for` `all` or `any`, an
//!    optional `timeout_seconds` and `include_results` (completed results in the same answer).
//!    One batch wait is better than many single waits.
//! 2. (B-2) A wave larger than 20 ids is split into chunks of at most 20, in first-seen order.
//! 3. (B-2) Duplicates are removed (the first occurrence keeps its place) and reported in
//!    [`WaitPlan::duplicates`]; ids the host already knows to be terminal are left out and
//!    reported in [`WaitPlan::already_terminal`]. An empty id is an [`Error::InvalidInput`].
//!    No id left: a plan with no calls.
//! 4. (B-3) `all` is satisfied when every planned id is terminal; `any` when at least one id of the
//!    wave is, so over several chunks the first chunk that reports one terminal job satisfies
//!    the wave ([`WaitPlan::satisfied`]). Send the chunks of an `any` wave concurrently; once
//!    one answer satisfies the wave the others can be dropped (dropping a wait never cancels
//!    a job).
//! 5. (B-4) **A timeout answer is a partial snapshot, not an error.** `jobs_wait` returning at
//!    `timeout_seconds` with some ids still running tells the host their latest status; the
//!    host records it and plans the next slice from what is still not terminal.
//!
//! Planning allocates (it builds owned calls); it runs once per wave, not per event.
//!
//! ```
//! use longcall::batch::{plan_waits, WaitFor};
//! let ids = ["job_a", "job_b", "job_a", "job_done"];
//! let plan = plan_waits(ids, |id| id == "job_done", WaitFor::All, Some(50), true).unwrap();
//! assert_eq!(plan.calls.len(), 1);
//! assert_eq!(
//!     serde_json::to_string(&plan.calls[0]).unwrap(),
//!     r#"{"job_ids":["job_a","job_b"],"wait_for":"all","timeout_seconds":50,"include_results":true}"#
//! );
//! assert_eq!(plan.duplicates, ["job_a"]);
//! assert_eq!(plan.already_terminal, ["job_done"]);
//! ```

use alloc::collections::BTreeSet;
use alloc::string::String;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use crate::error::Error;

pub use crate::job_vocab::{WaitFor, MAX_WAIT_IDS as MAX_IDS_PER_WAIT};

/// The body of one `jobs_wait` call, spelled as on the wire.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct WaitCall {
    /// 1 to [`MAX_IDS_PER_WAIT`] distinct, non-empty job ids.
    pub job_ids: Vec<String>,
    /// `all` or `any`.
    pub wait_for: WaitFor,
    /// How long the server may hold the call; omitted when `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_seconds: Option<u32>,
    /// Return completed results in the same answer.
    pub include_results: bool,
}

// Read member by member from a `Value` object (`crate::tagged`): a derived reader would also
// compile an array form nobody writes.
impl<'de> Deserialize<'de> for WaitCall {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut f = crate::tagged::members(d, "struct WaitCall")?;
        Ok(WaitCall {
            job_ids: f.req("job_ids")?,
            wait_for: f.req("wait_for")?,
            timeout_seconds: f.opt("timeout_seconds")?,
            include_results: f.req("include_results")?,
        })
    }
}

/// The calls for one wave of ids, and what was left out of them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct WaitPlan {
    /// The calls to send, in first-seen order of their ids. Empty when no id is left.
    pub calls: Vec<WaitCall>,
    /// What the wave waits for (also set in every call).
    pub wait_for: WaitFor,
    /// Ids given more than once, each listed once, in the order their repeat was seen.
    pub duplicates: Vec<String>,
    /// Ids left out because the host already knew them terminal, in first-seen order.
    pub already_terminal: Vec<String>,
}

// Read member by member from a `Value` object (`crate::tagged`): a derived reader would also
// compile an array form nobody writes.
impl<'de> Deserialize<'de> for WaitPlan {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut f = crate::tagged::members(d, "struct WaitPlan")?;
        Ok(WaitPlan {
            calls: f.req("calls")?,
            wait_for: f.req("wait_for")?,
            duplicates: f.req("duplicates")?,
            already_terminal: f.req("already_terminal")?,
        })
    }
}

impl WaitPlan {
    /// Every planned id, in call order.
    pub fn planned_ids(&self) -> impl Iterator<Item = &str> {
        self.calls
            .iter()
            .flat_map(|c| c.job_ids.iter().map(String::as_str))
    }

    /// Whether the wave is done, given which ids the host has now seen terminal (from any
    /// answer, timeout answers included: a timeout is a partial snapshot, not an error).
    ///
    /// `all`: every planned id is terminal (ids already terminal at planning time count as
    /// done; a plan with no calls is satisfied). `any`: some id of the wave is terminal, which
    /// includes an id already terminal at planning time, so check
    /// `plan.satisfied(|_| false)` before sending an `any` plan at all.
    ///
    /// ```
    /// use longcall::batch::{plan_waits, WaitFor};
    /// let ids: Vec<String> = (0..30).map(|i| format!("job_{i}")).collect();
    /// let plan = plan_waits(ids.iter().map(String::as_str), |_| false, WaitFor::Any, None, true).unwrap();
    /// assert_eq!(plan.calls.len(), 2);
    /// assert!(!plan.satisfied(|_| false));
    /// assert!(plan.satisfied(|id| id == "job_27")); // the second chunk answered first
    /// ```
    pub fn satisfied(&self, terminal_ids_seen: impl Fn(&str) -> bool) -> bool {
        match self.wait_for {
            WaitFor::All => self.planned_ids().all(terminal_ids_seen),
            WaitFor::Any => {
                !self.already_terminal.is_empty() || self.planned_ids().any(terminal_ids_seen)
            }
        }
    }
}

/// Plans the `jobs_wait` calls for a wave of ids (rules 2 and 3).
///
/// `is_terminal` says which ids the host already saw terminal. Errors:
/// [`Error::InvalidInput`] for an empty id (field `job_ids`).
///
/// Call when a wave starts, and again with the ids still not terminal after each round of
/// answers (a timeout answer included).
pub fn plan_waits<'a>(
    ids: impl IntoIterator<Item = &'a str>,
    is_terminal: impl Fn(&str) -> bool,
    wait_for: WaitFor,
    timeout_seconds: Option<u32>,
    include_results: bool,
) -> Result<WaitPlan, Error> {
    let mut seen: BTreeSet<&str> = BTreeSet::new();
    let mut reported: BTreeSet<&str> = BTreeSet::new();
    let mut duplicates = Vec::new();
    let mut already_terminal = Vec::new();
    let mut calls: Vec<WaitCall> = Vec::new();
    for id in ids {
        if id.is_empty() {
            return Err(Error::invalid_input(
                "job_ids",
                "a job id must not be empty",
            ));
        }
        if !seen.insert(id) {
            if reported.insert(id) {
                duplicates.push(String::from(id));
            }
            continue;
        }
        if is_terminal(id) {
            already_terminal.push(String::from(id));
            continue;
        }
        match calls.last_mut() {
            Some(call) if call.job_ids.len() < MAX_IDS_PER_WAIT => {
                call.job_ids.push(String::from(id));
            }
            _ => {
                let mut job_ids = Vec::with_capacity(MAX_IDS_PER_WAIT);
                job_ids.push(String::from(id));
                calls.push(WaitCall {
                    job_ids,
                    wait_for,
                    timeout_seconds,
                    include_results,
                });
            }
        }
    }
    Ok(WaitPlan {
        calls,
        wait_for,
        duplicates,
        already_terminal,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::format;
    use alloc::vec;

    fn ids(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("job_{i}")).collect()
    }

    #[test]
    fn seed_body_spelling() {
        let call = WaitCall {
            job_ids: vec!["job_a".into(), "job_b".into(), "job_c".into()],
            wait_for: WaitFor::All,
            timeout_seconds: Some(50),
            include_results: true,
        };
        let json = serde_json::to_string(&call).unwrap();
        assert_eq!(
            json,
            r#"{"job_ids":["job_a","job_b","job_c"],"wait_for":"all","timeout_seconds":50,"include_results":true}"#
        );
        assert_eq!(serde_json::from_str::<WaitCall>(&json).unwrap(), call);
        let no_timeout = WaitCall {
            timeout_seconds: None,
            wait_for: WaitFor::Any,
            ..call
        };
        assert_eq!(
            serde_json::to_string(&no_timeout).unwrap(),
            r#"{"job_ids":["job_a","job_b","job_c"],"wait_for":"any","include_results":true}"#
        );
    }

    #[test]
    fn chunk_sizes() {
        for (n, want) in [
            (0usize, vec![]),
            (1, vec![1]),
            (20, vec![20]),
            (21, vec![20, 1]),
            (40, vec![20, 20]),
            (45, vec![20, 20, 5]),
        ] {
            let all = ids(n);
            let plan = plan_waits(
                all.iter().map(String::as_str),
                |_| false,
                WaitFor::All,
                None,
                false,
            )
            .unwrap();
            let sizes: Vec<usize> = plan.calls.iter().map(|c| c.job_ids.len()).collect();
            assert_eq!(sizes, want, "{n}");
            let planned: Vec<&str> = plan.planned_ids().collect();
            let given: Vec<&str> = all.iter().map(String::as_str).collect();
            assert_eq!(planned, given, "order kept");
        }
    }

    #[test]
    fn duplicates_and_terminal_left_out() {
        let wave = ["a", "b", "a", "t", "c", "a", "t", "b"];
        let plan = plan_waits(wave, |id| id == "t", WaitFor::All, Some(50), true).unwrap();
        assert_eq!(plan.calls.len(), 1);
        assert_eq!(plan.calls[0].job_ids, ["a", "b", "c"]);
        assert_eq!(plan.duplicates, ["a", "t", "b"]);
        assert_eq!(plan.already_terminal, ["t"]);
        assert!(plan.calls.iter().all(|c| c.timeout_seconds == Some(50)
            && c.include_results
            && c.wait_for == WaitFor::All));
    }

    #[test]
    fn empty_id_is_typed_error() {
        let e = plan_waits(["a", ""], |_| false, WaitFor::All, None, true).unwrap_err();
        assert_eq!(e.code(), "invalid_input");
    }

    #[test]
    fn nothing_left_means_no_calls() {
        let plan = plan_waits(["x", "y"], |_| true, WaitFor::All, None, true).unwrap();
        assert!(plan.calls.is_empty());
        assert!(plan.satisfied(|_| false));
        let plan = plan_waits([], |_| false, WaitFor::Any, None, true).unwrap();
        assert!(plan.calls.is_empty());
        assert!(
            !plan.satisfied(|_| true),
            "an empty any-wave has nothing to satisfy it"
        );
    }

    #[test]
    fn satisfaction() {
        let all = ids(45);
        let wave = || all.iter().map(String::as_str);
        let p_all = plan_waits(wave(), |_| false, WaitFor::All, None, true).unwrap();
        assert!(!p_all.satisfied(|id| id != "job_44"));
        assert!(p_all.satisfied(|_| true));
        let p_any = plan_waits(wave(), |_| false, WaitFor::Any, None, true).unwrap();
        assert!(!p_any.satisfied(|_| false));
        assert!(p_any.satisfied(|id| id == "job_41"));
        assert!(!p_any.satisfied(|id| id == "not_in_wave"));
        // An id already terminal satisfies an any-wave up front.
        let p = plan_waits(wave(), |id| id == "job_3", WaitFor::Any, None, true).unwrap();
        assert!(p.satisfied(|_| false));
        assert_eq!(p.planned_ids().count(), 44);
    }

    #[test]
    fn plan_serde_round_trip() {
        let plan = plan_waits(["a", "a", "b"], |id| id == "b", WaitFor::Any, None, false).unwrap();
        let json = serde_json::to_string(&plan).unwrap();
        assert_eq!(serde_json::from_str::<WaitPlan>(&json).unwrap(), plan);
    }
}
