//! `batch::plan_waits` with arbitrary ids: at most 20 per call, nothing lost or duplicated,
//! terminal ids never planned, order kept, `satisfied` consistent.
#![no_main]
use std::collections::BTreeSet;

use libfuzzer_sys::fuzz_target;
use longcall::batch::{plan_waits, WaitFor, MAX_IDS_PER_WAIT};

fuzz_target!(|data: (Vec<String>, u64, bool, Option<u32>, bool)| {
    let (ids, terminal_mask, any, timeout, include) = data;
    // Mix arbitrary ids with a small alphabet so duplicates are common.
    let ids: Vec<String> = ids
        .into_iter()
        .map(|s| {
            if s.len() == 1 {
                format!("j{}", s.as_bytes()[0] % 30)
            } else {
                s
            }
        })
        .collect();
    let is_terminal = |id: &str| {
        let h = id
            .bytes()
            .fold(7u64, |a, b| a.wrapping_mul(31).wrapping_add(u64::from(b)));
        terminal_mask & (1 << (h % 64)) != 0
    };
    let wait_for = if any { WaitFor::Any } else { WaitFor::All };
    let res = plan_waits(
        ids.iter().map(String::as_str),
        is_terminal,
        wait_for,
        timeout,
        include,
    );
    if ids.iter().any(String::is_empty) {
        assert_eq!(res.unwrap_err().code(), "invalid_input");
        return;
    }
    let plan = res.unwrap();
    // Oracle: first occurrences in order, split into terminal and not.
    let mut seen = BTreeSet::new();
    let mut want_planned = Vec::new();
    let mut want_terminal = Vec::new();
    let mut dups = BTreeSet::new();
    for id in &ids {
        if !seen.insert(id.as_str()) {
            dups.insert(id.as_str());
            continue;
        }
        if is_terminal(id) {
            want_terminal.push(id.as_str())
        } else {
            want_planned.push(id.as_str())
        }
    }
    for c in &plan.calls {
        assert!(!c.job_ids.is_empty() && c.job_ids.len() <= MAX_IDS_PER_WAIT);
        assert_eq!(c.wait_for, wait_for);
        assert_eq!(c.timeout_seconds, timeout);
        assert_eq!(c.include_results, include);
    }
    // Only the last chunk may be short.
    if let Some((_, full)) = plan.calls.split_last() {
        assert!(full.iter().all(|c| c.job_ids.len() == MAX_IDS_PER_WAIT));
    }
    let planned: Vec<&str> = plan.planned_ids().collect();
    assert_eq!(planned, want_planned, "an id lost, duplicated or reordered");
    assert!(
        planned.iter().all(|id| !is_terminal(id)),
        "a terminal id planned"
    );
    let got_terminal: Vec<&str> = plan.already_terminal.iter().map(String::as_str).collect();
    assert_eq!(got_terminal, want_terminal);
    let got_dups: BTreeSet<&str> = plan.duplicates.iter().map(String::as_str).collect();
    assert_eq!(got_dups, dups);
    assert_eq!(
        plan.duplicates.len(),
        dups.len(),
        "a duplicate reported twice"
    );
    // Satisfaction.
    match wait_for {
        WaitFor::All => {
            assert!(plan.satisfied(|_| true));
            assert_eq!(plan.satisfied(|_| false), planned.is_empty());
        }
        WaitFor::Any => {
            assert_eq!(plan.satisfied(|_| false), !want_terminal.is_empty());
            assert_eq!(
                plan.satisfied(|_| true),
                !want_terminal.is_empty() || !planned.is_empty()
            );
        }
    }
    // Re-planning what is left keeps everything and never grows.
    let again = plan_waits(
        planned.iter().copied(),
        |_| false,
        wait_for,
        timeout,
        include,
    )
    .unwrap();
    assert_eq!(again.planned_ids().collect::<Vec<_>>(), planned);
    assert!(again.duplicates.is_empty() && again.already_terminal.is_empty());
});
