//! Properties of the wave scheduler under arbitrary answers (host only: proptest).

use std::collections::BTreeSet;

use longcall::batch::{WaitFor, MAX_IDS_PER_WAIT};
use longcall::cancel::{CancelAnswer, JobErrorCode};
use longcall::tracker::{Failure, Input, Output};
use longcall::view::JobView;
use longcall::wave::{Wave, WaveConfig, WaveInput, WaveOutput};
use longcall::Status;
use proptest::prelude::*;

#[derive(Clone, Debug)]
enum Op {
    /// Answer the `call`-th pending call with entries (job index or a stray, status index).
    Answer {
        call: usize,
        entries: Vec<(usize, usize)>,
    },
    Fail {
        call: usize,
        kind: u8,
    },
    Release(usize),
    Press(usize),
    CancelAnswer {
        job: usize,
        kind: u8,
    },
    Tick,
}

const STATUSES: [Status; 8] = [
    Status::Queued,
    Status::Processing,
    Status::Running,
    Status::Completed,
    Status::Failed,
    Status::Canceled,
    Status::Expired,
    Status::Working, // not a job status: refused, reported
];

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0usize..4, prop::collection::vec((0usize..70, 0usize..8), 0..25))
            .prop_map(|(call, entries)| Op::Answer { call, entries }),
        1 => (0usize..4, 0u8..3).prop_map(|(call, kind)| Op::Fail { call, kind }),
        1 => (0usize..70).prop_map(Op::Release),
        1 => (0usize..70).prop_map(Op::Press),
        1 => (0usize..70, 0u8..4).prop_map(|(job, kind)| Op::CancelAnswer { job, kind }),
        2 => Just(Op::Tick),
    ]
}

fn view(id: String, status: Status) -> JobView {
    JobView {
        id,
        status,
        result: None,
        error: None,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn no_id_in_two_calls_and_none_dropped_before_done(
        n in 1usize..60,
        any_wave in any::<bool>(),
        deadlines in prop::collection::vec(prop::option::of(1u64..200_000), 60),
        ops in prop::collection::vec(op(), 1..80),
    ) {
        let wait_for = if any_wave { WaitFor::Any } else { WaitFor::All };
        let mut w = Wave::new(WaveConfig { wait_for, seed: 3, ..WaveConfig::default() }).unwrap();
        let ids: Vec<String> = (0..n).map(|i| format!("job_{i}")).collect();
        for (i, id) in ids.iter().enumerate() {
            w.handle_input(0, WaveInput::AddJob { job: view(id.clone(), Status::Queued), deadline: deadlines.get(i).copied().flatten() }).unwrap();
        }
        let mut now = 0u64;
        let mut pending: Vec<(u64, Vec<String>)> = Vec::new();
        let mut finished: BTreeSet<String> = BTreeSet::new();
        let mut satisfied = 0;
        let mut check = |w: &mut Wave, pending: &mut Vec<(u64, Vec<String>)>, now: u64| -> Result<(), TestCaseError> {
            let outs = w.drain();
            let mut round: Vec<(u64, Vec<String>)> = Vec::new();
            for o in &outs {
                match o {
                    WaveOutput::Wait { call_id, call } => round.push((*call_id, call.job_ids.clone())),
                    WaveOutput::Job { id, output: Output::Settled { .. } | Output::Stopped { .. } } => {
                        prop_assert!(finished.insert(id.clone()), "{id} settled or stopped twice");
                    }
                    WaveOutput::Satisfied { .. } => satisfied += 1,
                    WaveOutput::WakeAt { at } => prop_assert!(*at >= now.min(*at)),
                    _ => {}
                }
            }
            let needed: BTreeSet<String> = w.needed_ids().map(String::from).collect();
            // Every id is either still needed or was reported settled / stopped, never both.
            for id in w.ids() {
                prop_assert!(needed.contains(id) != finished.contains(id), "{id} lost or duplicated");
            }
            if !round.is_empty() {
                prop_assert!(pending.is_empty(), "a round started while one was in flight");
                let mut seen = BTreeSet::new();
                for (_, call) in &round {
                    prop_assert!(!call.is_empty() && call.len() <= MAX_IDS_PER_WAIT);
                    for id in call {
                        prop_assert!(seen.insert(id.clone()), "{id} in two calls of a round");
                    }
                }
                prop_assert_eq!(&seen, &needed, "a round waits on exactly the needed ids");
                *pending = round;
            }
            Ok(())
        };
        check(&mut w, &mut pending, now)?;
        for op in ops {
            match op {
                Op::Tick => {
                    if let Some(at) = w.poll_timeout() {
                        now = now.max(at);
                    }
                    w.handle_timeout(now);
                }
                Op::Answer { call, entries } => {
                    if pending.is_empty() { continue; }
                    let (call_id, _) = pending.remove(call % pending.len());
                    let jobs = entries.into_iter().map(|(j, s)| {
                        let id = if j < n { ids[j].clone() } else { format!("stray_{j}") };
                        view(id, STATUSES[s])
                    }).collect();
                    now += 7;
                    w.handle_input(now, WaveInput::WaitAnswered { call_id, jobs }).unwrap();
                }
                Op::Fail { call, kind } => {
                    if pending.is_empty() { continue; }
                    let (call_id, _) = pending.remove(call % pending.len());
                    let failure = match kind {
                        0 => Failure::Transport,
                        1 => Failure::Http { status: 503, code: None, retry_after_ms: None },
                        _ => Failure::Http { status: 429, code: None, retry_after_ms: Some(3_000) },
                    };
                    w.handle_input(now, WaveInput::WaitFailed { call_id, failure }).unwrap();
                }
                Op::Release(j) => { let _ = w.handle_input(now, WaveInput::Release { id: ids[j % n].clone() }); }
                Op::Press(j) => { let _ = w.handle_input(now, WaveInput::CancelPressed { id: ids[j % n].clone() }); }
                Op::CancelAnswer { job, kind } => {
                    let answer = match kind {
                        0 => CancelAnswer::Job { status: longcall::status::JobStatus::Canceled },
                        1 => CancelAnswer::JobError { http_status: 409, code: JobErrorCode::JobGenerationAlreadyStarted, cancelable: Some(false) },
                        2 => CancelAnswer::JobError { http_status: 409, code: JobErrorCode::JobNotCancelable, cancelable: None },
                        _ => CancelAnswer::NoAnswer,
                    };
                    let _ = w.handle_input(now, WaveInput::Job { id: ids[job % n].clone(), input: Input::CancelAnswered { answer } });
                }
            }
            check(&mut w, &mut pending, now)?;
        }
        prop_assert!(satisfied <= 1, "satisfied more than once");
    }
}
