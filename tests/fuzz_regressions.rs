//! Regressions found by the fuzz campaign and the exhaustive checks (fuzz/README.md), kept after
//! their fixes.

use longcall::poll::{Jitter, PollPolicy};
use longcall::tracker::{Input, Output, Request, Tracker, TrackerConfig};
use longcall::view::{JobView, TaskView};
use longcall::{Model, Status};

fn no_jitter(deadline_ms: Option<u64>) -> TrackerConfig {
    TrackerConfig {
        poll: PollPolicy {
            jitter: Jitter::None,
            ..PollPolicy::default()
        },
        seed: 1,
        deadline_ms,
    }
}

fn task(status: Status, poll_interval_ms: Option<u64>) -> TaskView {
    TaskView {
        task_id: "t1".into(),
        status,
        status_message: None,
        created_at_ms: None,
        last_updated_at_ms: None,
        ttl_ms: longcall::view::Ttl::NotGiven,
        poll_interval_ms,
        input_requests: Vec::new(),
        result: None,
        error: None,
    }
}

fn gets(out: &[Output]) -> usize {
    out.iter()
        .filter(|o| {
            matches!(
                o,
                Output::Send {
                    request: Request::Get { .. }
                }
            )
        })
        .count()
}

/// F1 (tracker target): a host that calls `handle_timeout` late (a suspended laptop, a busy
/// event loop) gets a poll after the watch deadline. P-6: a deadline
/// ends watching and no poll is sent after it. The poll was scheduled before the deadline, but it
/// is sent after.
#[test]
fn no_poll_after_the_deadline_when_the_timeout_fires_late() {
    let mut t = Tracker::new(Model::Job, no_jitter(Some(1_680))).unwrap();
    let job = JobView {
        id: "job_1".into(),
        status: Status::Queued,
        result: None,
        error: None,
    };
    t.handle_input(0, Input::JobCreated { job }).unwrap();
    let out = t.drain();
    assert_eq!(out.last(), Some(&Output::WakeAt { at: 1_000 }));
    t.handle_timeout(19_448);
    let out = t.drain();
    assert_eq!(gets(&out), 0, "poll sent at 19448, deadline 1680: {out:?}");
    assert!(
        out.iter().any(|o| matches!(o, Output::Stopped { .. })),
        "{out:?}"
    );
}

/// F2 (tracker target): a notification that raises `pollIntervalMs` updates the floor but does
/// not move the poll already armed, so the next `tasks/get` goes out sooner than the server's
/// interval. P-3: a server interval is a
/// floor, never a ceiling.
#[test]
fn a_notified_poll_interval_is_a_floor_for_the_armed_poll() {
    let mut t = Tracker::new(Model::Task2026, no_jitter(None)).unwrap();
    t.handle_input(
        0,
        Input::TaskCreated {
            task: task(Status::Working, None),
        },
    )
    .unwrap();
    let out = t.drain();
    assert_eq!(out.last(), Some(&Output::WakeAt { at: 1_000 }));
    t.handle_input(
        10,
        Input::TaskNotified {
            task: task(Status::Working, Some(5_000)),
        },
    )
    .unwrap();
    let out = t.drain();
    let Some(Output::WakeAt { at }) = out.last() else {
        panic!("{out:?}")
    };
    assert!(
        *at >= 5_000,
        "armed poll at {at} is below the server's 5000 ms floor"
    );
}

/// F3 (tracker target, strict Retry-After): a 429 with Retry-After on `jobs_cancel` is turned
/// into a cancel answer and its Retry-After is dropped, so the confirming poll goes out before
/// it. A-3, P-4: a 429 `Retry-After` is
/// a floor for what follows, C-11: the cancel did not take effect.
#[test]
fn retry_after_on_a_cancel_429_holds_the_next_poll() {
    use longcall::tracker::{Failure, RequestKind};
    let mut t = Tracker::new(Model::Job, no_jitter(None)).unwrap();
    let job = JobView {
        id: "job_1".into(),
        status: Status::Queued,
        result: None,
        error: None,
    };
    t.handle_input(0, Input::JobCreated { job }).unwrap();
    let _ = t.drain(); // earlier outputs are not under test
    t.handle_input(100, Input::CancelPressed).unwrap();
    let _ = t.drain(); // earlier outputs are not under test
    let failure = Failure::Http {
        status: 429,
        code: Some("rate_limit_exceeded".into()),
        retry_after_ms: Some(10_000),
    };
    t.handle_input(
        200,
        Input::RequestFailed {
            request: RequestKind::Cancel,
            failure,
        },
    )
    .unwrap();
    let out = t.drain();
    let Some(Output::WakeAt { at }) = out.last() else {
        panic!("{out:?}")
    };
    assert!(
        *at >= 10_200,
        "next poll at {at}, before Retry-After ends at 10200"
    );
}

/// O1 (exhaustive cancel button, tracker target): a cancel answer the tracker never asked for
/// (no cancel press, no cancel in flight) is accepted and changes the button: a 2026 task that
/// nobody tried to cancel shows `acknowledged_pending`. Other inputs that do not fit the state
/// (an input key never asked, a second creation) are typed `invalid_input` errors; this one
/// should be too, so a host bug cannot make the button lie.
#[test]
fn an_unsolicited_cancel_answer_is_refused() {
    use longcall::cancel::{ButtonState, CancelAnswer};
    let mut t = Tracker::new(Model::Task2026, no_jitter(None)).unwrap();
    t.handle_input(
        0,
        Input::TaskCreated {
            task: task(Status::Working, None),
        },
    )
    .unwrap();
    let _ = t.drain(); // earlier outputs are not under test
    assert_eq!(t.button(), ButtonState::Available);
    let r = t.handle_input(
        10,
        Input::CancelAnswered {
            answer: CancelAnswer::Ack,
        },
    );
    assert_eq!(
        t.button(),
        ButtonState::Available,
        "the button changed without a press"
    );
    assert_eq!(r.unwrap_err().code(), "invalid_input");
}

/// Found by the tracker target once the strict checks were on: a 429 on a cancel nobody sent
/// was refused, but its Retry-After had already moved the schedule. An error leaves the tracker
/// exactly as it was.
#[test]
fn an_unsolicited_cancel_failure_changes_nothing() {
    use longcall::tracker::{Failure, RequestKind};
    let mut t = Tracker::new(Model::Task2025, no_jitter(None)).unwrap();
    t.handle_input(
        0,
        Input::TaskCreated {
            task: task(Status::Working, None),
        },
    )
    .unwrap();
    let _ = t.drain(); // earlier outputs are not under test
    let before = t.clone();
    let failure = Failure::Http {
        status: 429,
        code: None,
        retry_after_ms: Some(60_000),
    };
    let r = t.handle_input(
        5,
        Input::RequestFailed {
            request: RequestKind::Cancel,
            failure,
        },
    );
    assert_eq!(r.unwrap_err().code(), "invalid_input");
    assert_eq!(t, before);
}

/// Found by the CI fuzz smoke run: after a poll failed (transport), a notification raised
/// `pollIntervalMs`, and the armed poll was moved to *creation* + floor instead of *the failed
/// poll* + floor, so it went out early. A failed poll ends a poll too: the floors count from it.
///
/// Rules P-12.
#[test]
fn a_raised_floor_counts_from_a_failed_poll() {
    use longcall::tracker::{Failure, RequestKind};
    let mut t = Tracker::new(Model::Task2026, no_jitter(None)).unwrap();
    t.handle_input(
        0,
        Input::TaskCreated {
            task: task(Status::Working, None),
        },
    )
    .unwrap();
    let _ = t.drain(); // earlier outputs are not under test
    let at = t.poll_timeout().unwrap();
    t.handle_timeout(at);
    assert_eq!(gets(&t.drain()), 1);
    let failed_at = at + 60;
    t.handle_input(
        failed_at,
        Input::RequestFailed {
            request: RequestKind::Get,
            failure: Failure::Transport,
        },
    )
    .unwrap();
    let _ = t.drain(); // earlier outputs are not under test
    t.handle_input(
        failed_at + 1,
        Input::TaskNotified {
            task: task(Status::Working, Some(28_000)),
        },
    )
    .unwrap();
    let _ = t.drain(); // earlier outputs are not under test
    let next = t.poll_timeout().unwrap();
    assert!(
        next >= failed_at + 28_000,
        "next poll at {next}, before {}",
        failed_at + 28_000
    );
}

/// Found by the CI fuzz smoke run: a 2025 task is created in `input_required`, so its
/// `tasks/result` is open (I-8) while a poll is armed; a cancel answered 429 with `Retry-After`
/// set the floor but left that armed poll where it was, and it went out 24 s early. P-4: no
/// poll before `Retry-After`, one already armed included.
#[test]
fn retry_after_on_a_cancel_holds_a_poll_armed_while_the_result_is_open() {
    use longcall::tracker::{Failure, RequestKind};
    let mut t = Tracker::new(Model::Task2025, no_jitter(None)).unwrap();
    let mut created = task(Status::InputRequired, None);
    created.input_requests = vec![longcall::view::InputRequest {
        key: "k0".into(),
        request: serde_json::json!({"q": 0}).into(),
    }];
    t.handle_input(0, Input::TaskCreated { task: created })
        .unwrap();
    let mut working = task(Status::Working, None);
    working.input_requests = Vec::new();
    t.handle_input(0, Input::TaskNotified { task: working })
        .unwrap();
    let _ = t.drain(); // earlier outputs are not under test
    t.handle_input(0, Input::CancelPressed).unwrap();
    let _ = t.drain(); // the cancel request
    let failure = Failure::Http {
        status: 429,
        code: Some("rate_limit_exceeded".into()),
        retry_after_ms: Some(24_415),
    };
    t.handle_input(
        0,
        Input::RequestFailed {
            request: RequestKind::Cancel,
            failure,
        },
    )
    .unwrap();
    let _ = t.drain();
    let wake = t.poll_timeout().expect("a poll is armed");
    assert!(
        wake >= 24_415,
        "poll armed at {wake}, before Retry-After ends at 24415"
    );
    t.handle_timeout(650);
    let early = t.drain();
    assert_eq!(gets(&early), 0, "a poll went out at 650: {early:?}");
}
