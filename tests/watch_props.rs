//! A watch list's snapshot restores exactly, at any point of any run (host only: proptest), and
//! the restored list goes on exactly as the original would have.

use longcall::cancel::CancelAnswer;
use longcall::poll::{Jitter, PollPolicy};
use longcall::snapshot;
use longcall::tracker::{Failure, Input, RequestKind, TrackerConfig};
use longcall::view::{JobView, TaskView};
use longcall::watch::{CallId, Intent, WatchConfig, WatchList, WatchOutput};
use longcall::{Model, Status};
use proptest::prelude::*;
use serde_json::json;

#[derive(Clone, Debug)]
enum Op {
    AddNew(u8, u8),
    AddHandle(u8, u8),
    Persist(u8),
    PersistAll,
    Created(u8),
    Polled(u8, u8),
    Failed(u8),
    Press(u8),
    CancelAnswer(u8),
    Unanswered(u8),
    Tick(u16),
    Remove(u8),
}

const CALLS: u8 = 4;
const STATUSES: [Status; 8] = [
    Status::Queued,
    Status::Processing,
    Status::Completed,
    Status::Failed,
    Status::Working,
    Status::InputRequired,
    Status::Cancelled,
    Status::Canceled,
];

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0..CALLS, 0..3u8).prop_map(|(c, m)| Op::AddNew(c, m)),
        (0..CALLS, 0..3u8).prop_map(|(c, m)| Op::AddHandle(c, m)),
        (0..CALLS).prop_map(Op::Persist),
        Just(Op::PersistAll),
        (0..CALLS).prop_map(Op::Created),
        (0..CALLS, 0..STATUSES.len() as u8).prop_map(|(c, s)| Op::Polled(c, s)),
        (0..CALLS).prop_map(Op::Failed),
        (0..CALLS).prop_map(Op::Press),
        (0..CALLS).prop_map(Op::CancelAnswer),
        (0..CALLS).prop_map(Op::Unanswered),
        (0..5_000u16).prop_map(Op::Tick),
        (0..CALLS).prop_map(Op::Remove),
    ]
}

fn model(m: u8) -> Model {
    Model::ALL[usize::from(m) % 3]
}

fn config(seed: u64) -> TrackerConfig {
    TrackerConfig {
        poll: PollPolicy {
            jitter: Jitter::Full,
            min_interval_ms: 100,
            ..PollPolicy::default()
        },
        seed,
        deadline_ms: None,
    }
}

fn status_input(m: Model, id: String, status: Status, created: bool) -> Input {
    if m.is_task() {
        let task = TaskView {
            task_id: id,
            status,
            status_message: None,
            created_at_ms: None,
            last_updated_at_ms: None,
            ttl_ms: longcall::view::Ttl::NotGiven,
            poll_interval_ms: Some(300),
            input_requests: vec![],
            result: None,
            error: None,
        };
        if created {
            Input::TaskCreated { task }
        } else {
            Input::TaskPolled { task }
        }
    } else {
        let job = JobView {
            id,
            status,
            result: None,
            error: None,
        };
        if created {
            Input::JobCreated { job }
        } else {
            Input::JobPolled { job }
        }
    }
}

/// Applies one op (errors are part of the behaviour: they must match too) and drains.
fn apply(list: &mut WatchList, now: &mut u64, op: &Op) -> (Vec<String>, Vec<WatchOutput>) {
    let mut errors = Vec::new();
    let mut note = |r: Result<(), longcall::Error>| {
        if let Err(e) = r {
            errors.push(e.code().to_string());
        }
    };
    let model_of = |list: &WatchList, c: u8| list.tracker(CallId(c.into())).map(|t| t.model());
    match *op {
        Op::AddNew(c, m) => {
            let m = model(m);
            let intent = Intent {
                model: m,
                request: json!({"n": c}),
                idempotency_key: (m == Model::Job).then(|| format!("key-{c}")),
            };
            note(list.add_new(CallId(c.into()), intent, config(c.into())));
        }
        Op::AddHandle(c, m) => note(list.add_handle(
            *now,
            CallId(c.into()),
            model(m),
            &format!("h{c}"),
            config(c.into()),
        )),
        Op::Persist(c) => {
            if let Some((v, _)) = list.versions(CallId(c.into())) {
                note(list.handle_persisted(CallId(c.into()), v));
            }
        }
        Op::PersistAll => {
            for c in 0..CALLS {
                if let Some((v, _)) = list.versions(CallId(c.into())) {
                    note(list.handle_persisted(CallId(c.into()), v));
                }
            }
        }
        Op::Created(c) => {
            if let Some(m) = model_of(list, c) {
                let s = if m.is_task() {
                    Status::Working
                } else {
                    Status::Queued
                };
                note(list.handle_input(
                    *now,
                    CallId(c.into()),
                    status_input(m, format!("h{c}"), s, true),
                ));
            }
        }
        Op::Polled(c, s) => {
            if let Some(m) = model_of(list, c) {
                let s = STATUSES[usize::from(s)];
                note(list.handle_input(
                    *now,
                    CallId(c.into()),
                    status_input(m, format!("h{c}"), s, false),
                ));
            }
        }
        Op::Failed(c) => note(list.handle_input(
            *now,
            CallId(c.into()),
            Input::RequestFailed {
                request: RequestKind::Get,
                failure: Failure::Transport,
            },
        )),
        Op::Press(c) => note(list.handle_input(*now, CallId(c.into()), Input::CancelPressed)),
        Op::CancelAnswer(c) => note(list.handle_input(
            *now,
            CallId(c.into()),
            Input::CancelAnswered {
                answer: CancelAnswer::NoAnswer,
            },
        )),
        Op::Unanswered(c) => {
            note(list.handle_input(*now, CallId(c.into()), Input::CreateUnanswered))
        }
        Op::Tick(dt) => {
            *now += u64::from(dt);
            list.handle_timeout(*now);
        }
        Op::Remove(c) => {
            let _ = list.remove(CallId(c.into()));
        }
    }
    let outs = std::iter::from_fn(|| list.poll_output()).collect();
    (errors, outs)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn a_snapshot_restores_exactly_and_goes_on_the_same(
        ops in proptest::collection::vec(op(), 1..60),
        cut in 0usize..60,
        drain_before in any::<bool>(),
    ) {
        let mut a = WatchList::new(WatchConfig::default());
        let mut now = 0u64;
        let cut = cut.min(ops.len());
        for op in &ops[..cut] {
            let _ = apply(&mut a, &mut now, op);
        }
        // Snapshot with outputs still queued (or not): they are part of the state.
        if !drain_before {
            a.handle_timeout(now + 1);
        }
        let text = snapshot::save(&a).unwrap();
        let mut b: WatchList = snapshot::restore(&text).unwrap();
        prop_assert_eq!(&a, &b);
        prop_assert_eq!(a.poll_timeout(), b.poll_timeout());
        let mut now_b = now;
        for op in &ops[cut..] {
            let ra = apply(&mut a, &mut now, op);
            let rb = apply(&mut b, &mut now_b, op);
            prop_assert_eq!(ra, rb);
            prop_assert_eq!(a.poll_timeout(), b.poll_timeout());
        }
        prop_assert_eq!(&a, &b);
    }

    /// Whatever happened, every call resumes from its record, and an MCP create is never released
    /// again after a restart.
    #[test]
    fn every_record_resumes_and_mcp_creates_are_never_resent(
        ops in proptest::collection::vec(op(), 1..60),
    ) {
        let mut a = WatchList::new(WatchConfig::default());
        let mut now = 0u64;
        for op in &ops {
            let _ = apply(&mut a, &mut now, op);
        }
        let mut b = WatchList::new(WatchConfig::default());
        for c in 0..CALLS {
            if let Ok(saved) = a.save_call(CallId(c.into())) {
                prop_assert_eq!(b.resume_call(now + 10, &saved.text).unwrap(), CallId(c.into()));
            }
        }
        prop_assert_eq!(a.len(), b.len());
        for c in 0..CALLS {
            if let Some((v, _)) = b.versions(CallId(c.into())) {
                b.handle_persisted(CallId(c.into()), v).unwrap();
            }
        }
        let outs: Vec<WatchOutput> = std::iter::from_fn(|| b.poll_output()).collect();
        for o in &outs {
            if let WatchOutput::Create { intent, resend, .. } = o {
                prop_assert_eq!(intent.model, Model::Job);
                prop_assert!(*resend);
            }
        }
    }
}
