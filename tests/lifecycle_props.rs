//! Properties of the transition tables over arbitrary status sequences (area L of
//! `docs/rules.md`).

use longcall::lifecycle::{observe, transition, Observation, Transition};
use longcall::{Model, Status};
use proptest::prelude::*;

fn model() -> impl Strategy<Value = Model> {
    prop::sample::select(Model::ALL.to_vec())
}

proptest! {
    /// Terminal is absorbing: once a sequence reaches a terminal status, no later status of
    /// another phase is an allowed transition nor a consistent observation, and a client that
    /// keeps the first terminal status it saw never changes it.
    #[test]
    fn terminal_is_absorbing(model in model(), picks in prop::collection::vec(0usize..16, 1..24)) {
        let statuses = Status::of(model);
        let seq: Vec<Status> = picks.iter().map(|i| statuses[i % statuses.len()]).collect();
        let mut held: Option<Status> = None;
        for pair in seq.windows(2) {
            let (a, b) = (pair[0], pair[1]);
            let t = transition(model, a, b).unwrap();
            let o = observe(model, a, b).unwrap();
            if a.is_terminal() && a.phase() != b.phase() {
                prop_assert_eq!(t, Transition::FromTerminal);
                prop_assert_eq!(o, Observation::TerminalConflict);
            }
            // An allowed transition is always a consistent observation.
            if t == Transition::Allowed {
                prop_assert_eq!(o, Observation::Advance);
            }
        }
        for s in seq {
            match held {
                Some(h) if h.is_terminal() => {
                    let o = observe(model, h, s).unwrap();
                    prop_assert!(o == Observation::Repeat || o == Observation::TerminalConflict);
                }
                _ => {
                    if held.is_none_or(|h| observe(model, h, s).unwrap().is_consistent()) {
                        held = Some(s);
                    }
                }
            }
        }
    }

    /// Observation is the closure of the table: if a then b and b then c are consistent and
    /// advance, a then c is consistent too (a poller that missed b still sees a valid path).
    #[test]
    fn skipped_observations_are_paths(model in model(), a in 0usize..16, b in 0usize..16, c in 0usize..16) {
        let s = Status::of(model);
        let (a, b, c) = (s[a % s.len()], s[b % s.len()], s[c % s.len()]);
        let step = |x, y| observe(model, x, y).unwrap();
        if step(a, b) == Observation::Advance && step(b, c) == Observation::Advance && a.phase() != c.phase() {
            prop_assert!(matches!(step(a, c), Observation::Advance | Observation::Skipped));
        }
    }
}
