//! Runs every scenario vector in `tests/vectors/*.json` (see `tests/vectors/README.md` and the
//! module docs of `longcall::vector`) and checks that together they exercise every rule a tracker
//! can report.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use longcall::vector::{self, Report, Vector};
use longcall::Rule;
use serde_json::Value;

/// Fewer vectors than this means files went missing.
const MIN_VECTORS: usize = 30;

/// Rules in `Rule::ALL` that a tracker never emits as an output, and why. Every other rule must be
/// exercised by at least one vector.
const NOT_EMITTED_BY_TRACKERS: &[(Rule, &str)] = &[
    (Rule::UnknownStatus, "a status the model does not have cannot be a tracker input: `Status` is typed, so it fails when the wire or the vector is parsed (wire codecs report it)"),
    (Rule::InputAnsweredTwice, "a client-side rule: a tracker refuses a second answer (invalid_input, see task2026-input-key-reused); `longcall check` reports it in traces"),
    (Rule::PollTooFast, "a client-side rule checked on traces; a tracker never schedules below the floor (poll-interval-floor, retry-after-429)"),
    (Rule::ResubmitAfterTimeout, "a client-side rule checked on traces; a tracker has no output that could resubmit (create-unanswered-no-resubmit)"),
    (Rule::McpNameHeader, "wire level (Streamable HTTP headers): the codecs and `longcall check`, not the tracker"),
    (Rule::WrongResultType, "wire level (resultType): reported by the codecs before a view reaches a tracker"),
    (Rule::MissingCapability, "wire level (_meta capability): reported by the codecs / reference server"),
    (Rule::UnsolicitedTask, "wire level: whether the request declared the capability is not known to a tracker"),
    (Rule::WrongRevisionMethod, "wire level (tasks/result on 2026, ...): reported by the codecs / reference server"),
    (Rule::MissingField, "wire level: a view with a missing required field cannot be built"),
    (Rule::UnreadableAnswer, "endpoint level: an answer that cannot be read never becomes a tracker input"),
    (Rule::CreatedTaskNotFound, "a transcript rule (probe_rules X-1): needs the creating answer and the poll side by side"),
    (Rule::CancelledUnasked, "a transcript rule (probe_rules X-3): a tracker does not know whether another client cancelled"),
    (Rule::ForeignIdDistinguishable, "a transcript rule (probe_rules X-4): needs two principals"),
    (Rule::PollRefusedAtFloor, "a transcript rule (probe_rules X-5): the tracker treats a 429 as a failed poll and backs off"),
    (Rule::CreatedJobNotFound, "a job log rule (probe_rules X-7): needs the submit answer and the poll side by side"),
    (Rule::IdempotencyKeyNotReplayed, "a job log rule (probe_rules X-8): a tracker sends one intent's key and reconciles, it never compares two submits"),
    (Rule::CancelNotRefunded, "a job log rule (probe_rules X-11): credits are not a tracker input"),
    (Rule::RetryAfterMissing, "a job log rule (probe_rules X-12): a tracker backs off without a Retry-After and says nothing"),
    (Rule::WaitConditionBroken, "a job log rule (probe_rules X-14): a wave reads each job's status, not the wait's promise"),
    (Rule::UnknownTaskNotification, "P-11 allows 'kept or ignored'; the tracker ignores a notification for another task silently (notification-unknown-task-ignored)"),
    (Rule::CancelNotInProgress, "an observer rule (notifications/cancelled names a request already answered): a tracker sends no notifications; `longcall check` reports it in traces"),
];

/// Whether `about` opens with a rule id such as `C-8` (`tests/rule_book.rs` checks the id exists).
fn starts_with_rule_id(about: &str) -> bool {
    let mut chars = about.chars();
    let letter = chars.next().is_some_and(|c| c.is_ascii_uppercase());
    let dash = chars.next() == Some('-');
    letter && dash && chars.next().is_some_and(|c| c.is_ascii_digit())
}

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("vectors")
}

/// Every `tests/vectors/*.json`, sorted by file name (`pending/` is not loaded).
fn files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir())
        .expect("tests/vectors exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
}

fn load(path: &Path) -> Vector {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    vector::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn pretty(v: &impl serde::Serialize) -> String {
    serde_json::to_string_pretty(v).unwrap_or_else(|e| format!("<unprintable: {e}>"))
}

/// A readable account of every mismatch in `report`.
fn diff(file: &Path, v: &Vector, report: &Report) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "vector {} ({}) failed: {}",
        v.name,
        file.display(),
        v.about
    );
    for (step, got) in v.steps.iter().zip(&report.steps) {
        if got.ok {
            continue;
        }
        let what = match &step.input {
            Some(input) => pretty(input),
            None => "timeout".into(),
        };
        let _ = writeln!(out, "\n--- step {} at {} ms: {what}", got.index, step.at);
        if got.error != step.error {
            let _ = writeln!(out, "error: expected {:?}, got {:?}", step.error, got.error);
        }
        if got.outputs != step.expect {
            let _ = writeln!(out, "expected outputs:\n{}", pretty(&step.expect));
            let _ = writeln!(out, "actual outputs:\n{}", pretty(&got.outputs));
        }
    }
    if !report.record_ok {
        if let Some(want) = &v.record {
            for (k, w) in want {
                let g = report.record.get(k).cloned().unwrap_or(Value::Null);
                if &g != w {
                    let _ = writeln!(out, "\n--- record.{k}: expected {w}, got {g}");
                }
            }
        }
    }
    out
}

/// Every rule code that appears in a `violation` output.
fn rules_in(report: &Report) -> impl Iterator<Item = String> + '_ {
    report
        .steps
        .iter()
        .flat_map(|s| &s.outputs)
        .filter_map(|o| {
            (o.get("type")? == "violation")
                .then(|| o.pointer("/violation/rule")?.as_str().map(String::from))
                .flatten()
        })
}

#[test]
fn every_vector_passes() {
    let files = files();
    assert!(
        files.len() >= MIN_VECTORS,
        "only {} vectors in {}; expected at least {MIN_VECTORS}",
        files.len(),
        dir().display()
    );
    let mut failures = Vec::new();
    let mut names = BTreeSet::new();
    let mut seen_rules = BTreeSet::new();
    for file in &files {
        let v = load(file);
        let stem = file
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default();
        assert_eq!(
            v.name,
            stem,
            "{}: name must match the file name",
            file.display()
        );
        assert!(
            names.insert(v.name.clone()),
            "duplicate vector name {}",
            v.name
        );
        assert!(
            starts_with_rule_id(&v.about),
            "{}: `about` must start with the id of its rule in docs/rules.md (like `C-8`)",
            v.name
        );
        assert!(!v.steps.is_empty(), "{}: no steps", v.name);
        let report = vector::run(&v).unwrap_or_else(|e| panic!("{}: unusable vector: {e}", v.name));
        seen_rules.extend(rules_in(&report));
        if !report.passed {
            failures.push(diff(file, &v, &report));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} vectors failed:\n\n{}",
        failures.len(),
        files.len(),
        failures.join("\n\n")
    );

    let exempt: BTreeSet<&str> = NOT_EMITTED_BY_TRACKERS
        .iter()
        .map(|(r, _)| r.code())
        .collect();
    let missing: Vec<&str> = Rule::ALL
        .iter()
        .map(|r| r.code())
        .filter(|c| !exempt.contains(c) && !seen_rules.contains(*c))
        .collect();
    assert!(
        missing.is_empty(),
        "rules a tracker can emit that no vector exercises: {missing:?}"
    );
    let stale: Vec<&str> = exempt
        .iter()
        .copied()
        .filter(|c| seen_rules.contains(*c))
        .collect();
    assert!(stale.is_empty(), "rules listed as never emitted by trackers but seen in vectors (remove the exception): {stale:?}");
}

/// `tests/vectors/pending/` holds vectors that show a tracker bug (see its README). They must
/// still parse and still fail; once the tracker is fixed, this test says to move them back.
#[test]
fn pending_vectors_still_fail() {
    let pending = dir().join("pending");
    let Ok(entries) = fs::read_dir(&pending) else {
        return;
    };
    let mut files: Vec<PathBuf> = entries
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    for file in files {
        let v = load(&file);
        let report = vector::run(&v).unwrap_or_else(|e| panic!("{}: unusable vector: {e}", v.name));
        assert!(
            !report.passed,
            "pending vector {} passes now: move it to tests/vectors/",
            v.name
        );
    }
}
