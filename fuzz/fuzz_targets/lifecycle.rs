//! Lifecycle verdicts against an oracle written from the prose of rules L-1 to L-9
//! (`docs/rules.md`) (not the crate's tables): transition/observe agree, terminal is absorbing,
//! nothing outside the allowed set is accepted, foreign statuses are typed errors.
#![no_main]
use libfuzzer_sys::fuzz_target;
use longcall::lifecycle::{observe, seed, transition, Observation, Seed, Transition};
use longcall::{Model, Status};

/// Statuses a model speaks, spelled out from rules L-1 and L-2.
fn speaks(model: Model, s: &str) -> bool {
    match model {
        Model::Task2026 | Model::Task2025 => [
            "working",
            "input_required",
            "completed",
            "failed",
            "cancelled",
        ]
        .contains(&s),
        Model::Job => [
            "queued",
            "processing",
            "running",
            "completed",
            "failed",
            "canceled",
            "expired",
        ]
        .contains(&s),
    }
}

fn terminal(s: &str) -> bool {
    ["completed", "failed", "cancelled", "canceled", "expired"].contains(&s)
}

fn phase(s: &str) -> &str {
    if s == "running" {
        "processing"
    } else {
        s
    }
}

/// Server truth, from the prose of rules L-3 and L-4.
fn allowed(model: Model, a: &str, b: &str) -> bool {
    let (a, b) = (phase(a), phase(b));
    if a == b || terminal(a) {
        return false;
    }
    match model {
        // working -> input_required|completed|failed|cancelled; input_required -> working|...
        Model::Task2026 | Model::Task2025 => true,
        Model::Job => match a {
            "queued" => ["processing", "canceled", "failed", "expired"].contains(&b),
            "processing" => ["completed", "failed", "expired"].contains(&b),
            _ => false,
        },
    }
}

/// Some allowed path a ->+ b (a breadth-first search over `allowed`).
fn reachable(model: Model, a: &str, b: &str) -> bool {
    let all: Vec<&str> = Status::ALL
        .iter()
        .map(|s| s.as_str())
        .filter(|s| speaks(model, s))
        .collect();
    let mut seen = vec![a];
    let mut frontier = vec![a];
    while let Some(x) = frontier.pop() {
        for &y in &all {
            if allowed(model, x, y) && !seen.contains(&y) {
                if phase(y) == phase(b) {
                    return true;
                }
                seen.push(y);
                frontier.push(y);
            }
        }
    }
    false
}

fuzz_target!(|data: (u8, Vec<u8>)| {
    let (m, seq) = data;
    let model = longcall_fuzz::model_of(m);
    let statuses: Vec<Status> = seq
        .iter()
        .map(|b| Status::from_code(b % 10).unwrap())
        .collect();
    let mut held: Option<Status> = None;
    let mut first_terminal: Option<Status> = None;
    for (i, &to) in statuses.iter().enumerate() {
        let ok_to = speaks(model, to.as_str());
        if let Some(&from) = i.checked_sub(1).and_then(|j| statuses.get(j)) {
            let ok_from = speaks(model, from.as_str());
            let t = transition(model, from, to);
            let o = observe(model, from, to);
            if !(ok_from && ok_to) {
                assert_eq!(t.unwrap_err().code(), "status_not_in_model");
                assert_eq!(o.unwrap_err().code(), "status_not_in_model");
            } else {
                let (f, s) = (from.as_str(), to.as_str());
                let want_t = if phase(f) == phase(s) {
                    Transition::Repeat
                } else if terminal(f) {
                    Transition::FromTerminal
                } else if allowed(model, f, s) {
                    Transition::Allowed
                } else {
                    Transition::Forbidden
                };
                assert_eq!(t.unwrap(), want_t, "{model} {f} -> {s}");
                let want_o = if phase(f) == phase(s) {
                    Observation::Repeat
                } else if terminal(f) {
                    Observation::TerminalConflict
                } else if allowed(model, f, s) {
                    Observation::Advance
                } else if reachable(model, f, s) {
                    Observation::Skipped
                } else {
                    Observation::Regression
                };
                assert_eq!(o.unwrap(), want_o, "{model} observe {f} -> {s}");
                // Never processing -> canceled, in any form.
                if model == Model::Job && phase(f) == "processing" && s == "canceled" {
                    assert!(!want_o.is_consistent());
                }
            }
        }
        // A client folding the observations: keeps the first terminal status.
        if ok_to {
            match held {
                None => {
                    let sd = seed(model, to).unwrap();
                    let want = if matches!(to.as_str(), "working" | "queued") {
                        Seed::Normal
                    } else if model == Model::Task2025 {
                        Seed::Violation
                    } else {
                        Seed::Unusual
                    };
                    assert_eq!(sd, want);
                    held = Some(to);
                }
                Some(h) => {
                    let o = observe(model, h, to).unwrap();
                    if o.is_consistent() && o != Observation::Repeat {
                        assert!(!h.is_terminal(), "moved out of terminal {h}");
                        held = Some(to);
                    }
                }
            }
            if let Some(h) = held {
                if h.is_terminal() && first_terminal.is_none() {
                    first_terminal = Some(h);
                }
            }
            if let Some(ft) = first_terminal {
                assert_eq!(held, Some(ft), "terminal is absorbing");
            }
        } else {
            assert!(seed(model, to).is_err());
        }
    }
});
