//! Exhaustive checks over small abstract alphabets (fuzz/README.md, "Exhaustive checks").
//!
//! * lifecycle: every status sequence of length 1..=8 for each model, folded the way a client
//!   folds polls, against an oracle written from rules L-3 to L-8 (`docs/rules.md`);
//! * cancel button: every sequence of 8 events (press, each verdict, each status, lost) from
//!   every model;
//! * tracker: every sequence of 6 abstract inputs over 8 per model (poll answers, cancel press
//!   and answers, timeouts), run for real, with the tracker invariants checked after each step.
//!
//! The lifecycle and the button are explored with state hashing: every check of a step depends
//! only on the state before it (the last and the held status; the button and what was observed)
//! and on the event, so each distinct (state, steps left) node is expanded once and the number of
//! sequences below it is counted, not enumerated. Every sequence is still covered: a sequence is a
//! path through these nodes, and every edge out of every reachable node is checked.
//!
//! Each part prints how many sequences it covered and asserts the count the alphabet implies.

use std::collections::{BTreeSet, HashMap};

use longcall::cancel::{ButtonState, CancelAnswer, CancelButton, CancelVerdict, JobErrorCode};
use longcall::lifecycle::{observe, transition, Observation, Transition};
use longcall::outcome::Outcome;
use longcall::poll::{Jitter, PollPolicy};
use longcall::status::{JobStatus, TaskStatus};
use longcall::tracker::{Input, Output, Request, Tracker, TrackerConfig};
use longcall::view::{InputRequest, JobView, RpcError, TaskView, ToolResult};
use longcall::{Model, Status};
use serde_json::json;

/// Sequence lengths: the lifecycle and the button are hashed, the tracker runs every sequence.
const LIFECYCLE_DEPTH: u32 = 8;
const BUTTON_DEPTH: u32 = 8;
const TRACKER_DEPTH: u32 = 6;

// ---------------------------------------------------------------------------------------------
// Lifecycle

fn oracle_allowed(model: Model, a: Status, b: Status) -> bool {
    use Status::*;
    let (a, b) = (a.phase(), b.phase());
    if a == b {
        return false;
    }
    match model {
        Model::Task2026 | Model::Task2025 => matches!(a, Working | InputRequired),
        Model::Job => matches!(
            (a, b),
            (Queued, Processing | Canceled | Failed | Expired)
                | (Processing, Completed | Failed | Expired)
        ),
    }
}

fn oracle_reachable(model: Model, a: Status, b: Status) -> bool {
    let mut seen = vec![a];
    let mut i = 0;
    while let Some(&x) = seen.get(i) {
        i += 1;
        for &y in Status::of(model) {
            if oracle_allowed(model, x, y) && !seen.contains(&y) {
                seen.push(y);
            }
        }
    }
    seen[1..].iter().any(|s| s.phase() == b.phase())
}

/// Checks every step out of (last status, held status) and returns how many sequences of 1 to
/// `left` more statuses start there. `held` is what a client folding the observations shows.
fn lifecycle_walk(
    model: Model,
    last: Option<Status>,
    held: Option<Status>,
    left: u32,
    memo: &mut HashMap<(Option<Status>, Option<Status>, u32), u64>,
) -> u64 {
    if left == 0 {
        return 0;
    }
    if let Some(&n) = memo.get(&(last, held, left)) {
        return n;
    }
    let mut count = 0;
    for &s in Status::of(model) {
        let mut next_held = held;
        if let Some(prev) = last {
            let t = transition(model, prev, s).unwrap();
            let o = observe(model, prev, s).unwrap();
            assert_eq!(
                t == Transition::Allowed,
                oracle_allowed(model, prev, s),
                "{model} {prev}->{s}"
            );
            assert_eq!(
                t == Transition::FromTerminal,
                prev.is_terminal() && prev != s,
                "{model} {prev}->{s}"
            );
            let consistent = prev.phase() == s.phase()
                || (!prev.is_terminal() && oracle_reachable(model, prev, s));
            assert_eq!(o.is_consistent(), consistent, "{model} observe {prev}->{s}");
        }
        match held {
            None => next_held = Some(s),
            Some(h) => {
                let o = observe(model, h, s).unwrap();
                if o.is_consistent() && o != Observation::Repeat {
                    assert!(!h.is_terminal(), "{model}: left terminal {h} for {s}");
                    next_held = Some(s);
                }
                if h.is_terminal() {
                    assert_eq!(next_held, Some(h), "terminal is absorbing");
                }
            }
        }
        // This sequence, and every longer one that continues it.
        count += 1 + lifecycle_walk(model, Some(s), next_held, left - 1, memo);
    }
    memo.insert((last, held, left), count);
    count
}

fn sum_of_powers(n: u64, depth: u32) -> u64 {
    (1..=depth).map(|k| n.pow(k)).sum()
}

/// Rules L-3, L-4, L-5, L-6, L-7.
#[test]
fn lifecycle_every_sequence_to_depth_8() {
    const DEPTH: u32 = LIFECYCLE_DEPTH;
    let mut total = 0;
    for model in Model::ALL {
        let mut memo = HashMap::new();
        let count = lifecycle_walk(model, None, None, DEPTH, &mut memo);
        let n = Status::of(model).len() as u64;
        assert_eq!(count, sum_of_powers(n, DEPTH), "{model}");
        eprintln!(
            "exhaustive lifecycle {model}: {count} sequences (alphabet {n}, depth 1..={DEPTH}), {} distinct (state, depth) nodes",
            memo.len()
        );
        total += count;
    }
    assert_eq!(total, 2 * sum_of_powers(5, DEPTH) + sum_of_powers(7, DEPTH));
}

// ---------------------------------------------------------------------------------------------
// Cancel button

#[derive(Clone, Copy, Debug)]
enum BEvent {
    Press,
    Verdict(CancelVerdict),
    Status(Status),
    Lost,
}

const VERDICTS: [CancelVerdict; 8] = [
    CancelVerdict::Acknowledged,
    CancelVerdict::Cancelled,
    CancelVerdict::TooLate,
    CancelVerdict::AlreadyFinished,
    CancelVerdict::Rejected,
    CancelVerdict::NotFound,
    CancelVerdict::RequestFailed,
    CancelVerdict::BreaksRevision,
];

fn button_alphabet(model: Model) -> Vec<BEvent> {
    let mut a = vec![BEvent::Press, BEvent::Lost];
    a.extend(VERDICTS.iter().map(|&v| BEvent::Verdict(v)));
    a.extend(Status::of(model).iter().map(|&s| BEvent::Status(s)));
    a
}

/// What the checker knows besides the button: whether a cancelled status (or a cancel answer
/// carrying one) was seen, and whether a terminal status was.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
struct BKey(String, bool, bool);

fn button_step(
    b: &mut CancelButton,
    ev: BEvent,
    cancelled_seen: &mut bool,
    terminal_seen: &mut bool,
) {
    let before = b.clone();
    let terminal_before = *terminal_seen;
    match ev {
        BEvent::Press => match b.press() {
            Ok(()) => {
                assert_eq!(before.state(), ButtonState::Available);
                assert_eq!(b.state(), ButtonState::Requesting);
            }
            Err(e) => {
                assert_eq!(e.code(), "cancel_refused");
                assert_eq!(*b, before, "a refused press changed the button");
            }
        },
        BEvent::Verdict(v) => match b.handle_verdict(v) {
            Ok(_) => {
                assert!(
                    before.awaiting_answer(),
                    "an answer taken with no request out"
                );
                if v == CancelVerdict::Cancelled {
                    *cancelled_seen = true; // the answer carries the cancelled status
                }
            }
            // C-21: no request out, so the answer is nobody's and changes nothing.
            Err(e) => {
                assert!(!before.awaiting_answer());
                assert_eq!(e.code(), "invalid_input");
                assert_eq!(*b, before, "a refused answer changed the button");
            }
        },
        BEvent::Status(s) => {
            b.handle_status(s).unwrap();
            if !*terminal_seen {
                *cancelled_seen |= s.is_cancelled();
            }
            if s.is_terminal() {
                *terminal_seen = true;
                assert!(
                    b.state().is_final(),
                    "{s} observed but the button shows {:?}",
                    b.state()
                );
            }
        }
        BEvent::Lost => {
            b.handle_lost();
        }
    }
    // C-23: `finished_first` from an answer, before any terminal status, gives way to the first
    // terminal status when that is a cancelled one; no other final state ever changes.
    let answer_corrected = before.state() == ButtonState::FinishedFirst
        && !terminal_before
        && matches!(ev, BEvent::Status(s) if s.is_cancelled());
    if before.state().is_final() && !answer_corrected {
        assert_eq!(
            b.state(),
            before.state(),
            "a final button state changed on {ev:?}"
        );
    }
    if answer_corrected {
        assert_eq!(b.state(), ButtonState::Cancelled, "after {ev:?}");
    }
    if b.state() == ButtonState::Cancelled {
        assert!(
            *cancelled_seen,
            "button cancelled without a cancelled status, after {ev:?}"
        );
    }
    if b.state() == ButtonState::Requesting {
        // Only a press leads there (C-21: a verdict without one is refused; finding O1 in
        // fuzz/README.md was a verdict with no press showing `requesting`).
        assert!(b.pressed() || before.state() == ButtonState::Requesting);
    }
    if b.last_status().is_none()
        && !b.pressed()
        && !matches!(ev, BEvent::Verdict(_))
        && before.state() == ButtonState::Unavailable
    {
        assert_eq!(
            b.state(),
            ButtonState::Unavailable,
            "no status, no press, yet {:?}",
            b.state()
        );
    }
}

fn button_walk(
    b: &CancelButton,
    cancelled: bool,
    terminal: bool,
    left: u32,
    alphabet: &[BEvent],
    memo: &mut HashMap<(BKey, u32), u64>,
) -> u64 {
    if left == 0 {
        return 1;
    }
    let key = (
        BKey(serde_json::to_string(b).unwrap(), cancelled, terminal),
        left,
    );
    if let Some(&n) = memo.get(&key) {
        return n;
    }
    let mut n = 0;
    for &ev in alphabet {
        let mut next = b.clone();
        let (mut c, mut t) = (cancelled, terminal);
        button_step(&mut next, ev, &mut c, &mut t);
        n += button_walk(&next, c, t, left - 1, alphabet, memo);
    }
    memo.insert(key, n);
    n
}

/// Rules C-14, C-15, C-16.
#[test]
fn cancel_button_every_sequence_to_depth_8() {
    const DEPTH: u32 = BUTTON_DEPTH;
    for model in Model::ALL {
        let alphabet = button_alphabet(model);
        let mut memo = HashMap::new();
        let count = button_walk(
            &CancelButton::new(model),
            false,
            false,
            DEPTH,
            &alphabet,
            &mut memo,
        );
        let n = alphabet.len() as u64;
        assert_eq!(count, n.pow(DEPTH), "{model}");
        eprintln!(
            "exhaustive cancel button {model}: {count} sequences (alphabet {n}, depth {DEPTH}), {} distinct (state, depth) nodes",
            memo.len()
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Tracker

#[derive(Clone, Debug)]
enum TEvent {
    Poll(Status),
    Press,
    Cancel(CancelAnswer),
    Fetched(bool),
    Wake,
}

fn tracker_alphabet(model: Model) -> Vec<TEvent> {
    use Status::*;
    use TEvent::*;
    match model {
        Model::Task2026 => vec![
            Poll(Working),
            Poll(InputRequired),
            Poll(Completed),
            Poll(Failed),
            Poll(Cancelled),
            Press,
            Cancel(CancelAnswer::Ack),
            Wake,
        ],
        Model::Task2025 => vec![
            Poll(Working),
            Poll(Completed),
            Poll(Cancelled),
            Press,
            Cancel(CancelAnswer::Task {
                status: TaskStatus::Cancelled,
            }),
            Cancel(CancelAnswer::RpcError { code: -32602 }),
            Fetched(false),
            Wake,
        ],
        Model::Job => vec![
            Poll(Queued),
            Poll(Processing),
            Poll(Completed),
            Poll(Canceled),
            Press,
            Cancel(CancelAnswer::Job {
                status: JobStatus::Canceled,
            }),
            Cancel(CancelAnswer::JobError {
                http_status: 409,
                code: JobErrorCode::JobGenerationAlreadyStarted,
                cancelable: Some(false),
            }),
            Wake,
        ],
    }
}

fn task_view(model: Model, status: Status, interval: Option<u64>) -> TaskView {
    TaskView {
        task_id: "t1".into(),
        status,
        status_message: None,
        created_at_ms: Some(0),
        last_updated_at_ms: None,
        ttl_ms: longcall::view::Ttl::NotGiven,
        poll_interval_ms: interval,
        input_requests: if status == Status::InputRequired {
            vec![InputRequest {
                key: "k1".into(),
                request: json!({}).into(),
            }]
        } else {
            Vec::new()
        },
        result: (model == Model::Task2026 && status == Status::Completed).then(|| ToolResult {
            is_error: false,
            value: json!(1).into(),
        }),
        error: (model == Model::Task2026 && status == Status::Failed).then(|| RpcError {
            code: -32603,
            message: String::new(),
            data: None,
        }),
    }
}

fn poll_input(model: Model, status: Status) -> Input {
    if model == Model::Job {
        Input::JobPolled {
            job: JobView {
                id: "t1".into(),
                status,
                result: None,
                error: None,
            },
        }
    } else {
        Input::TaskPolled {
            task: task_view(model, status, Some(700)),
        }
    }
}

#[derive(Clone)]
struct TState {
    t: Tracker,
    now: u64,
    wake: Option<u64>,
    last_answer: u64,
    asked: BTreeSet<String>,
    cancelled_seen: bool,
    settled: bool,
    done: bool,
    path: Vec<String>,
}

const MIN_INTERVAL: u64 = 300;
const SERVER_INTERVAL: u64 = 700;
const DEADLINE: u64 = 20_000;

fn tracker_drain(s: &mut TState, model: Model) {
    for out in s.t.drain() {
        match out {
            Output::Send {
                request: Request::Get { handle },
            } => {
                assert_eq!(handle, "t1");
                assert!(!s.done, "poll after done");
                let floor = if model == Model::Job {
                    MIN_INTERVAL
                } else {
                    SERVER_INTERVAL.max(MIN_INTERVAL)
                };
                assert!(
                    s.now >= s.last_answer + floor,
                    "poll at {} under the floor, last answer {}: {:?}",
                    s.now,
                    s.last_answer,
                    s.path
                );
                assert!(
                    s.wake.is_some_and(|w| w <= DEADLINE),
                    "poll scheduled after the deadline"
                );
            }
            Output::AskUser { key, .. } => assert!(s.asked.insert(key), "asked twice"),
            Output::Button {
                state: ButtonState::Cancelled,
            } => assert!(s.cancelled_seen, "cancelled button unearned"),
            Output::Settled {
                outcome, status, ..
            } => {
                assert!(!s.settled, "settled twice");
                s.settled = true;
                s.done = true;
                if outcome == Outcome::Cancelled {
                    assert!(s.cancelled_seen && status.is_some_and(Status::is_cancelled));
                }
            }
            Output::Stopped { .. } => s.done = true,
            Output::WakeAt { at } => s.wake = Some(at),
            Output::Idle => s.wake = None,
            _ => {}
        }
    }
}

fn tracker_step(s: &mut TState, ev: &TEvent, model: Model) {
    s.now += 100;
    s.path.push(format!("{ev:?}@{}", s.now));
    let input = match ev {
        TEvent::Wake => {
            if let Some(w) = s.wake {
                s.now = s.now.max(w);
            }
            s.t.handle_timeout(s.now);
            tracker_drain(s, model);
            return;
        }
        TEvent::Poll(st) => {
            s.cancelled_seen |= st.is_cancelled();
            s.last_answer = s.now;
            poll_input(model, *st)
        }
        TEvent::Press => Input::CancelPressed,
        TEvent::Cancel(a) => {
            match a {
                CancelAnswer::Task { status } => s.cancelled_seen |= status.status().is_cancelled(),
                CancelAnswer::Job { status } => s.cancelled_seen |= status.status().is_cancelled(),
                _ => {}
            }
            Input::CancelAnswered { answer: *a }
        }
        TEvent::Fetched(e) => Input::ResultFetched {
            result: ToolResult {
                is_error: *e,
                value: json!(2).into(),
            },
        },
    };
    let before = s.t.clone();
    if let Err(e) = s.t.handle_input(s.now, input) {
        assert!(longcall::error::ERROR_CODES.contains(&e.code()));
        assert_eq!(s.t, before, "an error changed the tracker");
    }
    tracker_drain(s, model);
}

fn tracker_walk(s: &TState, left: u32, alphabet: &[TEvent], model: Model) -> u64 {
    if left == 0 {
        return 1;
    }
    let mut n = 0;
    for ev in alphabet {
        let mut next = s.clone();
        tracker_step(&mut next, ev, model);
        n += tracker_walk(&next, left - 1, alphabet, model);
    }
    n
}

/// Rules O-10, L-6.
#[test]
fn tracker_every_sequence_to_depth_6() {
    const DEPTH: u32 = TRACKER_DEPTH;
    for model in Model::ALL {
        let config = TrackerConfig {
            poll: PollPolicy {
                jitter: Jitter::Full,
                min_interval_ms: MIN_INTERVAL,
                ..PollPolicy::default()
            },
            seed: 3,
            deadline_ms: Some(DEADLINE),
        };
        let mut t = Tracker::new(model, config).unwrap();
        let created = if model == Model::Job {
            Input::JobCreated {
                job: JobView {
                    id: "t1".into(),
                    status: Status::Queued,
                    result: None,
                    error: None,
                },
            }
        } else {
            Input::TaskCreated {
                task: task_view(model, Status::Working, Some(SERVER_INTERVAL)),
            }
        };
        t.handle_input(0, created).unwrap();
        let mut s = TState {
            t,
            now: 0,
            wake: None,
            last_answer: 0,
            asked: BTreeSet::new(),
            cancelled_seen: false,
            settled: false,
            done: false,
            path: Vec::new(),
        };
        tracker_drain(&mut s, model);
        let alphabet = tracker_alphabet(model);
        let count = tracker_walk(&s, DEPTH, &alphabet, model);
        let n = alphabet.len() as u64;
        assert_eq!(count, n.pow(DEPTH), "{model}");
        eprintln!("exhaustive tracker {model}: {count} sequences (alphabet {n}, depth {DEPTH})");
    }
}
