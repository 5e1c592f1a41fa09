//! Snapshots: `restore(save(x))` behaves exactly like `x` for any following inputs (tracker,
//! poll schedule, cancel button), and arbitrary bytes into `snapshot::restore` (tracker, poll
//! schedule, button, task registry, job book, wave) never panic and what restores round-trips.
#![no_main]
use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use longcall::cancel::{CancelButton, CancelVerdict};
use longcall::poll::{PollSchedule, PollStep};
use longcall::server::{JobBook, TaskRegistry};
use longcall::snapshot::{restore, save};
use longcall::tracker::Tracker;
use longcall::wave::Wave;
use longcall::Status;
use longcall_fuzz::{model_of, status_of, Checked, Scenario, Step};

#[derive(Arbitrary, Debug)]
enum Case {
    /// A tracker scenario split at `cut`: the rest runs on the original and on the restored copy.
    Tracker { sc: Scenario, cut: u8 },
    /// A poll schedule with arbitrary hints, split at `cut`.
    Schedule {
        sc: Scenario,
        steps: Vec<(u8, u16, Option<u16>)>,
        cut: u8,
    },
    /// A cancel button with arbitrary events, split at `cut`.
    Button {
        model: u8,
        events: Vec<(u8, u8)>,
        cut: u8,
    },
    /// Raw text into every restore.
    Raw(String),
}

fn sched_step(
    s: &mut PollSchedule,
    now: &mut u64,
    (k, d, x): (u8, u16, Option<u16>),
) -> Option<PollStep> {
    *now += u64::from(d);
    match k % 5 {
        0 => s.handle_server_interval(x.map(u64::from)),
        1 => s.handle_retry_after(*now, u64::from(x.unwrap_or(0))),
        2 => s.handle_progress(),
        3 => s.set_ttl_deadline(x.map(|t| *now + u64::from(t))),
        _ => return Some(s.next(*now)),
    }
    None
}

fn button_step(b: &mut CancelButton, (k, v): (u8, u8)) -> String {
    match k % 4 {
        0 => format!("{:?}", b.press()),
        1 => format!("{:?}", b.handle_status(status_of(b.model(), v))),
        2 => {
            let verdicts = [
                CancelVerdict::Acknowledged,
                CancelVerdict::Cancelled,
                CancelVerdict::TooLate,
                CancelVerdict::AlreadyFinished,
                CancelVerdict::Rejected,
                CancelVerdict::NotFound,
                CancelVerdict::RequestFailed,
                CancelVerdict::BreaksRevision,
            ];
            format!(
                "{:?}",
                b.handle_verdict(verdicts[usize::from(v) % verdicts.len()])
            )
        }
        _ => format!("{:?}", b.handle_lost()),
    }
}

fuzz_target!(|case: Case| {
    match case {
        Case::Tracker { sc, cut } => {
            let model = model_of(sc.model);
            let Some(mut a) = Checked::new(model, sc.config.build()) else {
                return;
            };
            let ops: Vec<_> = sc.ops.into_iter().take(200).collect();
            let cut = usize::from(cut).min(ops.len());
            for op in &ops[..cut] {
                a.step(op, false);
            }
            let text = save(&a.tracker).unwrap();
            let restored: Tracker = restore(&text).unwrap();
            assert_eq!(restored, a.tracker);
            let mut b = Checked {
                model,
                config: a.config.clone(),
                tracker: restored,
                shadow: a.shadow.clone(),
                log: Vec::new(),
            };
            a.log.clear();
            for op in &ops[cut..] {
                a.step(op, false);
                b.step(op, false);
                assert_eq!(a.tracker.record(), b.tracker.record());
            }
            assert_eq!(a.log, b.log, "restored tracker diverged");
            assert_eq!(a.tracker, b.tracker);
        }
        Case::Schedule { sc, steps, cut } => {
            let Ok(mut a) = PollSchedule::new(sc.config.build().poll, sc.config.seed) else {
                return;
            };
            let cut = usize::from(cut).min(steps.len());
            let mut now = 0;
            for &s in &steps[..cut] {
                sched_step(&mut a, &mut now, s);
            }
            let mut b: PollSchedule = restore(&save(&a).unwrap()).unwrap();
            assert_eq!(a, b);
            let mut nb = now;
            for &s in &steps[cut..] {
                assert_eq!(
                    sched_step(&mut a, &mut now, s),
                    sched_step(&mut b, &mut nb, s)
                );
            }
            assert_eq!(a, b);
        }
        Case::Button { model, events, cut } => {
            let mut a = CancelButton::new(model_of(model));
            let cut = usize::from(cut).min(events.len());
            for &e in &events[..cut] {
                button_step(&mut a, e);
            }
            let mut b: CancelButton = restore(&save(&a).unwrap()).unwrap();
            for &e in &events[cut..] {
                assert_eq!(button_step(&mut a, e), button_step(&mut b, e));
            }
            assert_eq!(a, b);
        }
        Case::Raw(text) => {
            for r in [
                restore::<Tracker>(&text).err(),
                restore::<PollSchedule>(&text).err(),
                restore::<CancelButton>(&text).err(),
                restore::<TaskRegistry>(&text).err(),
                restore::<JobBook>(&text).err(),
                restore::<Wave>(&text).err(),
            ]
            .into_iter()
            .flatten()
            {
                assert!(longcall::error::ERROR_CODES.contains(&r.code()));
            }
            // Whatever restores must save again and keep working.
            if let Ok(mut t) = restore::<Tracker>(&text) {
                let again: Tracker = restore(&save(&t).unwrap()).unwrap();
                assert_eq!(again, t);
                t.handle_timeout(u64::MAX);
                let _ = t.drain();
                let _ = t.handle_input(u64::MAX, longcall::tracker::Input::CancelPressed);
                let _ = t.drain();
            }
            if let Ok(mut s) = restore::<PollSchedule>(&text) {
                let _ = s.next(u64::MAX);
                let _ = s.next(0);
            }
            if let Ok(mut r) = restore::<TaskRegistry>(&text) {
                let again: TaskRegistry = restore(&save(&r).unwrap()).unwrap();
                assert_eq!(again, r);
                let _ = r.handle_timeout(u64::MAX);
                let _ = r.get(u64::MAX, "p", "t");
            }
            if let Ok(mut j) = restore::<JobBook>(&text) {
                let again: JobBook = restore(&save(&j).unwrap()).unwrap();
                assert_eq!(again, j);
                let _ = j.dispatch(u64::MAX);
            }
            if let Ok(w) = restore::<Wave>(&text) {
                let again: Wave = restore(&save(&w).unwrap()).unwrap();
                assert_eq!(again, w);
            }
            if let Ok(mut b) = restore::<CancelButton>(&text) {
                let _ = b.press();
                let _ = b.handle_status(Status::Completed);
            }
        }
    }
});
