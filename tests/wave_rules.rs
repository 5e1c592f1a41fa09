//! The wave scheduler's rules, one scenario each (area B of `docs/rules.md`, and
//! the job cancel rules of area C).

use longcall::batch::{WaitCall, WaitFor};
use longcall::cancel::{ButtonState, CancelAnswer, JobErrorCode};
use longcall::endpoint::HttpAnswer;
use longcall::outcome::Outcome;
use longcall::snapshot;
use longcall::tracker::{Failure, Input, Output, Request, StopReason};
use longcall::view::JobView;
use longcall::wave::{GiveUp, IgnoredReason, Released, Wave, WaveConfig, WaveInput, WaveOutput};
use longcall::Status;

fn job(id: &str, status: Status) -> JobView {
    JobView {
        id: id.into(),
        status,
        result: None,
        error: None,
    }
}

fn cfg(wait_for: WaitFor) -> WaveConfig {
    WaveConfig {
        wait_for,
        seed: 7,
        ..WaveConfig::default()
    }
}

fn ids(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("job_{i:02}")).collect()
}

fn wave_of(wait_for: WaitFor, n: usize) -> Wave {
    let mut w = Wave::new(cfg(wait_for)).unwrap();
    for id in ids(n) {
        w.handle_input(
            0,
            WaveInput::AddJob {
                job: job(&id, Status::Queued),
                deadline: None,
            },
        )
        .unwrap();
    }
    let _ = w.drain();
    w
}

/// Releases job `id` and returns what the wave reported doing (its first output); the
/// consequences stay queued.
fn release(w: &mut Wave, now: u64, id: &str) -> Result<Released, longcall::Error> {
    w.handle_input(now, WaveInput::Release { id: id.into() })?;
    match w.poll_output() {
        WaveOutput::Released { id: of, released } if of == id => Ok(released),
        other => panic!("expected Released for {id}, got {other:?}"),
    }
}

fn wake(outs: &[WaveOutput]) -> Option<u64> {
    outs.iter().find_map(|o| match o {
        WaveOutput::WakeAt { at } => Some(*at),
        _ => None,
    })
}

fn waits(outs: &[WaveOutput]) -> Vec<(u64, WaitCall)> {
    outs.iter()
        .filter_map(|o| match o {
            WaveOutput::Wait { call_id, call } => Some((*call_id, call.clone())),
            _ => None,
        })
        .collect()
}

fn job_outputs<'a>(outs: &'a [WaveOutput], want: &str) -> Vec<&'a Output> {
    outs.iter()
        .filter_map(|o| match o {
            WaveOutput::Job { id, output } if id == want => Some(output),
            _ => None,
        })
        .collect()
}

/// Fires the next timer and returns the calls of the round it starts.
fn round(w: &mut Wave) -> (u64, Vec<(u64, WaitCall)>) {
    let at = w.poll_timeout().expect("a timer is armed");
    w.handle_timeout(at);
    let outs = w.drain();
    (at, waits(&outs))
}

fn all_ids(calls: &[(u64, WaitCall)]) -> Vec<String> {
    calls.iter().flat_map(|(_, c)| c.job_ids.clone()).collect()
}

/// Rules B-1, B-2.
#[test]
fn chunks_45_jobs_into_20_20_5() {
    let mut w = wave_of(WaitFor::All, 45);
    let (_, calls) = round(&mut w);
    let sizes: Vec<usize> = calls.iter().map(|(_, c)| c.job_ids.len()).collect();
    assert_eq!(sizes, [20, 20, 5]);
    assert_eq!(all_ids(&calls), ids(45), "insertion order, each id once");
    for (_, c) in &calls {
        assert_eq!(c.wait_for, WaitFor::All);
        assert_eq!(c.timeout_seconds, Some(50));
        assert!(c.include_results);
    }
    assert!(w.round_in_flight());
    assert_eq!(w.poll_timeout(), None, "one round in flight at a time");
}

/// Rules B-6.
#[test]
fn earliest_deadline_first_none_last_then_insertion_order() {
    let mut w = Wave::new(cfg(WaitFor::All)).unwrap();
    for (id, d) in [
        ("a", None),
        ("b", Some(9_000_000)),
        ("c", None),
        ("d", Some(5_000_000)),
        ("e", Some(9_000_000)),
    ] {
        w.handle_input(
            0,
            WaveInput::AddJob {
                job: job(id, Status::Queued),
                deadline: d,
            },
        )
        .unwrap();
    }
    let (_, calls) = round(&mut w);
    assert_eq!(all_ids(&calls), ["d", "b", "e", "a", "c"]);
}

/// Rules B-5, B-2.
#[test]
fn already_terminal_job_settles_and_is_never_waited() {
    let mut w = Wave::new(cfg(WaitFor::All)).unwrap();
    w.handle_input(
        0,
        WaveInput::AddJob {
            job: job("done", Status::Completed),
            deadline: None,
        },
    )
    .unwrap();
    w.handle_input(
        0,
        WaveInput::AddJob {
            job: job("q", Status::Queued),
            deadline: None,
        },
    )
    .unwrap();
    let outs = w.drain();
    assert!(job_outputs(&outs, "done").iter().any(|o| matches!(
        o,
        Output::Settled {
            outcome: Outcome::Succeeded,
            ..
        }
    )));
    let (_, calls) = round(&mut w);
    assert_eq!(all_ids(&calls), ["q"]);
    assert!(!w.is_satisfied());
    assert_eq!(
        w.handle_input(
            0,
            WaveInput::AddJob {
                job: job("q", Status::Queued),
                deadline: None
            }
        )
        .unwrap_err()
        .code(),
        "invalid_input"
    );
}

/// Rules B-3.
#[test]
fn any_is_satisfied_by_the_first_job_that_settles_over_all_chunks() {
    let mut w = wave_of(WaitFor::Any, 30);
    let (at, calls) = round(&mut w);
    assert_eq!(calls.len(), 2);
    assert!(calls.iter().all(|(_, c)| c.wait_for == WaitFor::Any));
    // The second chunk answers first, with one finished job.
    w.handle_input(
        at + 10,
        WaveInput::WaitAnswered {
            call_id: calls[1].0,
            jobs: vec![job("job_27", Status::Completed)],
        },
    )
    .unwrap();
    let outs = w.drain();
    assert!(outs.contains(&WaveOutput::Satisfied {
        by: Some("job_27".into())
    }));
    // Then the first chunk: a later settle does not satisfy again; no more rounds.
    w.handle_input(
        at + 20,
        WaveInput::WaitAnswered {
            call_id: calls[0].0,
            jobs: vec![job("job_03", Status::Failed)],
        },
    )
    .unwrap();
    let outs = w.drain();
    assert!(!outs
        .iter()
        .any(|o| matches!(o, WaveOutput::Satisfied { .. })));
    assert!(w.is_satisfied());
    assert_eq!(outs.last(), Some(&WaveOutput::Idle), "{outs:?}");
    assert_eq!(
        w.needed_ids().count(),
        28,
        "the rest are still running; the host decides"
    );
}

/// Rules B-6: a deadline is a time; one already passed (a duration, most likely) is refused when
/// the job is added, and the wave is left as it was.
#[test]
fn a_deadline_already_passed_is_refused() {
    let mut w = Wave::new(cfg(WaitFor::All)).unwrap();
    for deadline in [1_500, 10_000] {
        let e = w
            .handle_input(
                10_000,
                WaveInput::AddJob {
                    job: job("a", Status::Queued),
                    deadline: Some(deadline),
                },
            )
            .unwrap_err();
        assert_eq!(e.code(), "invalid_input");
        assert!(e.message().contains("has passed (now is 10000)"), "{e}");
    }
    assert_eq!(w.ids().count(), 0);
    w.handle_input(
        10_000,
        WaveInput::AddJob {
            job: job("a", Status::Queued),
            deadline: Some(10_001),
        },
    )
    .unwrap();
    assert_eq!(w.ids().count(), 1);
}

/// Rules B-3, B-6: an `any` wave whose every job is given up (here, at its deadline) before one
/// settled has nothing left to wait for: it is satisfied with no job named, and arms no more
/// rounds (it used to stay unsatisfied, due at once, for ever).
#[test]
fn any_whose_jobs_are_all_given_up_is_satisfied_by_none() {
    let mut w = Wave::new(cfg(WaitFor::Any)).unwrap();
    for id in ["a", "b"] {
        w.handle_input(
            0,
            WaveInput::AddJob {
                job: job(id, Status::Queued),
                deadline: Some(1_000),
            },
        )
        .unwrap();
    }
    let _ = w.drain();
    let (at, calls) = round(&mut w);
    w.handle_input(
        at + 10,
        WaveInput::WaitFailed {
            call_id: calls[0].0,
            failure: Failure::Http {
                status: 404,
                code: None,
                retry_after_ms: None,
            },
        },
    )
    .unwrap();
    let _ = w.drain();
    w.handle_timeout(1_000);
    let outs = w.drain();
    assert!(
        outs.contains(&WaveOutput::Satisfied { by: None }),
        "{outs:?}"
    );
    assert!(w.is_satisfied());
    assert_eq!(w.needed_ids().count(), 0);
    assert_eq!(w.poll_timeout(), None, "nothing left to wake for");
    assert_eq!(outs.last(), Some(&WaveOutput::Idle), "{outs:?}");
}

/// Rules B-3, B-6.
#[test]
fn all_is_satisfied_once_every_job_settled_or_given_up() {
    let mut w = Wave::new(cfg(WaitFor::All)).unwrap();
    w.handle_input(
        0,
        WaveInput::AddJob {
            job: job("a", Status::Queued),
            deadline: None,
        },
    )
    .unwrap();
    w.handle_input(
        0,
        WaveInput::AddJob {
            job: job("b", Status::Queued),
            deadline: None,
        },
    )
    .unwrap();
    w.handle_input(
        0,
        WaveInput::AddJob {
            job: job("late", Status::Queued),
            deadline: Some(2_000),
        },
    )
    .unwrap();
    let _ = w.drain();
    let (at, calls) = round(&mut w);
    w.handle_input(
        at + 100,
        WaveInput::WaitAnswered {
            call_id: calls[0].0,
            jobs: vec![job("a", Status::Completed), job("b", Status::Processing)],
        },
    )
    .unwrap();
    assert!(!w
        .drain()
        .iter()
        .any(|o| matches!(o, WaveOutput::Satisfied { .. })));
    // The deadline of "late" comes first (EDF timer), then the next round.
    assert_eq!(w.poll_timeout(), Some(at + 500));
    let (at, calls) = round(&mut w);
    assert_eq!(all_ids(&calls), ["late", "b"]);
    w.handle_input(
        at + 100,
        WaveInput::WaitAnswered {
            call_id: calls[0].0,
            jobs: vec![job("b", Status::Completed)],
        },
    )
    .unwrap();
    let _ = w.drain();
    let (_, calls) = round(&mut w);
    assert_eq!(all_ids(&calls), ["late"]);
    assert_eq!(
        w.poll_timeout(),
        Some(2_000),
        "the deadline fires mid-round"
    );
    w.handle_timeout(2_000);
    let outs = w.drain();
    assert_eq!(
        job_outputs(&outs, "late"),
        [
            &Output::Button {
                state: ButtonState::Unavailable
            },
            &Output::Stopped {
                reason: StopReason::Deadline
            }
        ]
    );
    assert_eq!(w.given_up("late"), Some(GiveUp::Deadline));
    assert_eq!(
        outs.iter()
            .filter(|o| matches!(o, WaveOutput::Satisfied { by: None }))
            .count(),
        1
    );
    assert_eq!(outs.last(), Some(&WaveOutput::Idle));
}

/// Rules B-4.
#[test]
fn a_timeout_answer_is_a_partial_snapshot() {
    let mut w = wave_of(WaitFor::All, 3);
    let (at, calls) = round(&mut w);
    // Only two of three ids answered, the call timed out: not an error.
    w.handle_input(
        at + 50_000,
        WaveInput::WaitAnswered {
            call_id: calls[0].0,
            jobs: vec![
                job("job_00", Status::Processing),
                job("job_01", Status::Completed),
            ],
        },
    )
    .unwrap();
    let outs = w.drain();
    assert!(job_outputs(&outs, "job_00").contains(&&Output::Status {
        status: Status::Processing
    }));
    assert!(
        job_outputs(&outs, "job_02").is_empty(),
        "missing ids stay as they were"
    );
    assert_eq!(w.tracker("job_02").unwrap().status(), Some(Status::Queued));
    let (_, calls) = round(&mut w);
    assert_eq!(all_ids(&calls), ["job_00", "job_02"]);
}

/// Rules B-8.
#[test]
fn stray_and_refused_entries_are_reported_never_fatal() {
    let mut w = wave_of(WaitFor::All, 2);
    let (at, calls) = round(&mut w);
    w.handle_input(
        at,
        WaveInput::WaitAnswered {
            call_id: calls[0].0,
            jobs: vec![
                job("ghost", Status::Completed),
                job("job_00", Status::Working),
                job("job_01", Status::Completed),
            ],
        },
    )
    .unwrap();
    let outs = w.drain();
    assert!(outs.contains(&WaveOutput::Ignored {
        id: "ghost".into(),
        reason: IgnoredReason::NotInWave
    }));
    assert!(outs.iter().any(|o| matches!(o, WaveOutput::Ignored { id, reason: IgnoredReason::Refused { .. } } if id == "job_00")));
    assert_eq!(w.needed_ids().collect::<Vec<_>>(), ["job_00"]);
    // An answer for a call that is not in flight changes nothing.
    assert_eq!(
        w.handle_input(
            at,
            WaveInput::WaitAnswered {
                call_id: calls[0].0,
                jobs: vec![]
            }
        )
        .unwrap_err()
        .code(),
        "invalid_input"
    );
    assert_eq!(
        w.handle_input(
            at,
            WaveInput::WaitAnswered {
                call_id: 999,
                jobs: vec![]
            }
        )
        .unwrap_err()
        .code(),
        "invalid_input"
    );
}

/// Rules B-9, C-13.
#[test]
fn release_of_a_queued_job_presses_its_cancel() {
    let mut w = wave_of(WaitFor::All, 2);
    assert_eq!(
        release(&mut w, 0, "job_01").unwrap(),
        Released::CancelRequested
    );
    let outs = w.drain();
    let sent: Vec<&Output> = job_outputs(&outs, "job_01");
    assert!(
        sent.contains(&&Output::Send {
            request: Request::Cancel {
                handle: "job_01".into(),
                idempotency_key: Some("job_01:cancel".into())
            }
        }),
        "{sent:?}"
    );
    assert_eq!(
        release(&mut w, 0, "job_01").unwrap(),
        Released::CancelPending
    );
    // Still waited on until the answer and an observation decide.
    let (_, calls) = round(&mut w);
    assert_eq!(all_ids(&calls), ["job_00", "job_01"]);
    w.handle_input(
        10,
        WaveInput::Job {
            id: "job_01".into(),
            input: Input::CancelAnswered {
                answer: CancelAnswer::Job {
                    status: longcall::status::JobStatus::Canceled,
                },
            },
        },
    )
    .unwrap();
    let outs = w.drain();
    assert!(job_outputs(&outs, "job_01").iter().any(|o| matches!(
        o,
        Output::Settled {
            outcome: Outcome::Cancelled,
            ..
        }
    )));
    assert_eq!(w.needed_ids().collect::<Vec<_>>(), ["job_00"]);
    assert_eq!(
        release(&mut w, 10, "nope").unwrap_err().code(),
        "invalid_input"
    );
}

/// Rules B-9.
#[test]
fn release_of_a_started_job_stops_waiting_without_pretending() {
    let mut w = wave_of(WaitFor::Any, 2);
    let (at, calls) = round(&mut w);
    w.handle_input(
        at,
        WaveInput::WaitAnswered {
            call_id: calls[0].0,
            jobs: vec![job("job_00", Status::Processing)],
        },
    )
    .unwrap();
    let _ = w.drain();
    assert_eq!(
        release(&mut w, at, "job_00").unwrap(),
        Released::StoppedWaiting
    );
    let outs = w.drain();
    let o = job_outputs(&outs, "job_00");
    assert_eq!(
        o,
        [
            &Output::Button {
                state: ButtonState::Unavailable
            },
            &Output::Stopped {
                reason: StopReason::HostStopped
            }
        ],
        "no cancel, no settle; the button cannot be pressed any more (C-17)"
    );
    assert_eq!(w.tracker("job_00").unwrap().outcome(), None);
    assert_eq!(w.given_up("job_00"), Some(GiveUp::Released));
    let (_, calls) = round(&mut w);
    assert_eq!(all_ids(&calls), ["job_01"]);
    assert_eq!(
        release(&mut w, at, "job_00").unwrap(),
        Released::AlreadyDone
    );
}

/// Rules B-9, C-8.
#[test]
fn a_409_too_late_keeps_the_job_waited() {
    let mut w = wave_of(WaitFor::All, 1);
    w.handle_input(
        0,
        WaveInput::CancelPressed {
            id: "job_00".into(),
        },
    )
    .unwrap();
    let _ = w.drain();
    let too_late = CancelAnswer::JobError {
        http_status: 409,
        code: JobErrorCode::JobGenerationAlreadyStarted,
        cancelable: Some(false),
    };
    w.handle_input(
        5,
        WaveInput::Job {
            id: "job_00".into(),
            input: Input::CancelAnswered { answer: too_late },
        },
    )
    .unwrap();
    let outs = w.drain();
    assert!(job_outputs(&outs, "job_00").contains(&&Output::Button {
        state: ButtonState::TooLate
    }));
    assert_eq!(
        w.handle_input(
            5,
            WaveInput::CancelPressed {
                id: "job_00".into()
            }
        )
        .unwrap_err()
        .code(),
        "cancel_refused"
    );
    let (at, calls) = round(&mut w);
    assert_eq!(
        all_ids(&calls),
        ["job_00"],
        "it runs and bills: keep waiting"
    );
    w.handle_input(
        at,
        WaveInput::WaitAnswered {
            call_id: calls[0].0,
            jobs: vec![job("job_00", Status::Completed)],
        },
    )
    .unwrap();
    let outs = w.drain();
    assert!(job_outputs(&outs, "job_00").iter().any(|o| matches!(
        o,
        Output::Settled {
            outcome: Outcome::Succeeded,
            ..
        }
    )));
    assert!(outs.contains(&WaveOutput::Satisfied { by: None }));
}

#[test]
fn released_then_409_stays_waited_until_released_again() {
    let mut w = wave_of(WaitFor::All, 1);
    assert_eq!(
        release(&mut w, 0, "job_00").unwrap(),
        Released::CancelRequested
    );
    let _ = w.drain();
    let failure = Failure::Http {
        status: 409,
        code: Some("job_generation_already_started".into()),
        retry_after_ms: None,
    };
    w.handle_input(
        5,
        WaveInput::Job {
            id: "job_00".into(),
            input: Input::RequestFailed {
                request: longcall::tracker::RequestKind::Cancel,
                failure,
            },
        },
    )
    .unwrap();
    let _ = w.drain();
    assert_eq!(w.needed_ids().count(), 1);
    assert_eq!(
        release(&mut w, 5, "job_00").unwrap(),
        Released::StoppedWaiting
    );
    assert!(w.drain().contains(&WaveOutput::Satisfied { by: None }));
}

/// Rules B-7.
#[test]
fn rounds_are_spaced_by_the_min_round_interval() {
    let mut w = wave_of(WaitFor::All, 2);
    let (t0, calls) = round(&mut w);
    w.handle_input(
        t0 + 1,
        WaveInput::WaitAnswered {
            call_id: calls[0].0,
            jobs: vec![job("job_00", Status::Processing)],
        },
    )
    .unwrap();
    assert_eq!(
        wake(&w.drain()),
        Some(t0 + 500),
        "an instant answer does not start the next round at once"
    );
    w.handle_timeout(t0 + 499);
    assert!(waits(&w.drain()).is_empty());
    w.handle_timeout(t0 + 500);
    assert_eq!(waits(&w.drain()).len(), 1);
}

/// Rules B-7, P-4.
#[test]
fn a_429_retry_after_is_a_floor_and_5xx_backs_off() {
    let mut w = wave_of(WaitFor::All, 25);
    let (t0, calls) = round(&mut w);
    w.handle_input(
        t0 + 10,
        WaveInput::WaitAnswered {
            call_id: calls[0].0,
            jobs: vec![],
        },
    )
    .unwrap();
    w.handle_input(
        t0 + 10,
        WaveInput::WaitFailed {
            call_id: calls[1].0,
            failure: Failure::Http {
                status: 429,
                code: None,
                retry_after_ms: Some(10_000),
            },
        },
    )
    .unwrap();
    let next = wake(&w.drain()).unwrap();
    assert!(next >= t0 + 10_010, "{next}");
    let (t1, calls) = round(&mut w);
    assert_eq!(t1, next);
    assert_eq!(all_ids(&calls).len(), 25, "nothing lost by a failure");
    w.handle_input(
        t1,
        WaveInput::WaitFailed {
            call_id: calls[0].0,
            failure: Failure::Http {
                status: 503,
                code: None,
                retry_after_ms: None,
            },
        },
    )
    .unwrap();
    w.handle_input(
        t1,
        WaveInput::WaitFailed {
            call_id: calls[1].0,
            failure: Failure::Transport,
        },
    )
    .unwrap();
    let next = wake(&w.drain()).unwrap();
    assert!(next >= t1 + 500, "{next}");
}

fn call_failures(outs: &[WaveOutput]) -> Vec<(u64, Failure, Option<String>)> {
    outs.iter()
        .filter_map(|o| match o {
            WaveOutput::CallFailed {
                call_id,
                failure,
                reason,
            } => Some((*call_id, failure.clone(), reason.clone())),
            _ => None,
        })
        .collect()
}

/// A `jobs_wait` answer as it arrived, without headers.
fn answer_http(
    w: &mut Wave,
    now: u64,
    call_id: u64,
    answer: HttpAnswer<'_>,
) -> Result<(), longcall::Error> {
    w.handle_wait_http(now, call_id, answer, &[])
}

fn http(status: u16, retry_after_ms: Option<u64>, body: &[u8]) -> HttpAnswer<'_> {
    HttpAnswer {
        status,
        retry_after_ms,
        body,
    }
}

/// Rules B-11, B-4: a 2xx `jobs_wait` answer as it arrived is applied: the entry settles its
/// job, the ids it lacks keep their status, and nothing is reported failed.
#[test]
fn an_http_answer_is_read_by_the_wave() {
    let mut w = wave_of(WaitFor::All, 2);
    let (t0, calls) = round(&mut w);
    let body =
        br#"{"jobs":[{"id":"job_00","status":"completed","result":{"url":"u"}}],"timed_out":true}"#;
    answer_http(&mut w, t0 + 5, calls[0].0, http(200, None, body)).unwrap();
    let outs = w.drain();
    assert!(call_failures(&outs).is_empty(), "{outs:?}");
    assert!(
        job_outputs(&outs, "job_00")
            .iter()
            .any(|o| matches!(o, Output::Settled { .. })),
        "{outs:?}"
    );
    assert_eq!(w.needed_ids().collect::<Vec<_>>(), ["job_01"]);
    assert!(
        answer_http(&mut w, t0 + 6, calls[0].0, http(200, None, body)).is_err(),
        "a call answered once is not answered again"
    );
}

/// Rules B-11, B-7: an answer that is not a usable `jobs_wait` answer is a failed call, reported
/// with its status, the envelope's code and why; a 429's `Retry-After` is a floor.
#[test]
fn an_http_answer_that_is_not_a_wait_answer_is_a_failed_call() {
    let mut w = wave_of(WaitFor::All, 25);
    let (t0, calls) = round(&mut w);
    let envelope = br#"{"error":{"code":"rate_limit_exceeded","message":"slow down"}}"#;
    // Retry-After as the header says it: the wave reads it.
    let headers = [("Retry-After".to_string(), "10".to_string())];
    w.handle_wait_http(t0 + 10, calls[0].0, http(429, None, envelope), &headers)
        .unwrap();
    // A proxy's HTML page with a 200, where the answer should be.
    answer_http(
        &mut w,
        t0 + 10,
        calls[1].0,
        http(200, None, b"<html>gateway</html>"),
    )
    .unwrap();
    let outs = w.drain();
    let failed = call_failures(&outs);
    assert_eq!(failed.len(), 2, "{outs:?}");
    assert_eq!(
        failed[0],
        (
            calls[0].0,
            Failure::Http {
                status: 429,
                code: Some("rate_limit_exceeded".into()),
                retry_after_ms: Some(10_000),
            },
            None
        )
    );
    assert_eq!(failed[1].0, calls[1].0);
    assert_eq!(
        failed[1].1,
        Failure::Http {
            status: 200,
            code: None,
            retry_after_ms: None
        }
    );
    assert!(failed[1].2.as_deref().is_some_and(|r| !r.is_empty()));
    let next = wake(&outs).unwrap();
    assert!(next >= t0 + 10_010, "not before Retry-After: {next}");
    // Nothing was applied: every id is waited again.
    let (_, calls) = round(&mut w);
    assert_eq!(all_ids(&calls).len(), 25);
    // A 2xx JSON body that is not the answer (no `jobs`) fails the same way, and a 5xx
    // without an envelope has no code.
    answer_http(
        &mut w,
        next + 1,
        calls[0].0,
        http(200, None, br#"{"ok":true}"#),
    )
    .unwrap();
    answer_http(&mut w, next + 1, calls[1].0, http(503, None, b"")).unwrap();
    let failed = call_failures(&w.drain());
    assert!(
        failed[0].2.as_deref().is_some_and(|r| r.contains("jobs")),
        "{failed:?}"
    );
    assert_eq!(
        failed[1].1,
        Failure::Http {
            status: 503,
            code: None,
            retry_after_ms: None
        }
    );
}

/// Rules B-12, O-6: a call refused `not_found` is split so the unknown id is found and lost;
/// the ids the server knows go back to one call.
#[test]
fn an_unknown_id_is_found_alone_and_lost() {
    let not_found = br#"{"error":{"code":"not_found","message":"job not found"}}"#;
    let mut w = wave_of(WaitFor::All, 3);
    let (t0, calls) = round(&mut w);
    assert_eq!(calls.len(), 1);
    answer_http(&mut w, t0 + 5, calls[0].0, http(404, None, not_found)).unwrap();
    let outs = w.drain();
    assert_eq!(call_failures(&outs).len(), 1);
    assert_eq!(
        wake(&outs),
        Some(t0 + 500),
        "no backoff: the next round finds the id"
    );
    let (t1, calls) = round(&mut w);
    let asked: Vec<Vec<String>> = calls.iter().map(|(_, c)| c.job_ids.clone()).collect();
    assert_eq!(asked, [["job_00"], ["job_01"], ["job_02"]], "each alone");
    let answer = |id: &str| format!(r#"{{"jobs":[{{"id":"{id}","status":"queued"}}]}}"#);
    answer_http(
        &mut w,
        t1 + 5,
        calls[0].0,
        http(200, None, answer("job_00").as_bytes()),
    )
    .unwrap();
    answer_http(&mut w, t1 + 5, calls[1].0, http(404, None, not_found)).unwrap();
    answer_http(
        &mut w,
        t1 + 5,
        calls[2].0,
        http(200, None, answer("job_02").as_bytes()),
    )
    .unwrap();
    let outs = w.drain();
    let lost = job_outputs(&outs, "job_01");
    assert!(
        lost.iter().any(|o| matches!(
            o,
            Output::Settled {
                outcome: Outcome::Lost,
                ..
            }
        )),
        "{outs:?}"
    );
    assert_eq!(w.needed_ids().collect::<Vec<_>>(), ["job_00", "job_02"]);
    // The two it knows are asked together again.
    let (_, calls) = round(&mut w);
    assert_eq!(all_ids(&calls), ["job_00", "job_02"]);
    assert_eq!(calls.len(), 1);
    // The split holds across a snapshot.
    let text = snapshot::save(&w).unwrap();
    let back: Wave = snapshot::restore(&text).unwrap();
    assert_eq!(back, w);
}

/// Rules B-12, B-7: a 404 without the `not_found` code (a server without the route) is an
/// ordinary failed call: backed off, nothing split, nothing lost.
#[test]
fn a_404_without_not_found_is_only_a_failed_call() {
    let mut w = wave_of(WaitFor::All, 2);
    let (t0, calls) = round(&mut w);
    answer_http(
        &mut w,
        t0 + 5,
        calls[0].0,
        http(404, None, b"Cannot POST /jobs/wait"),
    )
    .unwrap();
    let outs = w.drain();
    assert!(wake(&outs).unwrap() >= t0 + 500);
    assert!(outs.iter().all(|o| !matches!(o, WaveOutput::Job { .. })));
    let (_, calls) = round(&mut w);
    assert_eq!(calls.len(), 1, "asked together still");
    assert_eq!(w.needed_ids().count(), 2);
}

/// Rules S-4.
#[test]
fn snapshot_round_trip_mid_round() {
    let mut w = wave_of(WaitFor::All, 25);
    release(&mut w, 0, "job_03").unwrap();
    let (at, calls) = round(&mut w);
    w.handle_input(
        at + 5,
        WaveInput::WaitAnswered {
            call_id: calls[0].0,
            jobs: vec![job("job_00", Status::Completed)],
        },
    )
    .unwrap();
    let text = snapshot::save(&w).unwrap();
    let mut back: Wave = snapshot::restore(&text).unwrap();
    assert_eq!(back, w);
    // Both continue identically: the second call of the round answers.
    let answer = vec![job("job_21", Status::Failed)];
    w.handle_input(
        at + 9,
        WaveInput::WaitAnswered {
            call_id: calls[1].0,
            jobs: answer.clone(),
        },
    )
    .unwrap();
    back.handle_input(
        at + 9,
        WaveInput::WaitAnswered {
            call_id: calls[1].0,
            jobs: answer,
        },
    )
    .unwrap();
    assert_eq!(w.drain(), back.drain());
    assert_eq!(snapshot::save(&w).unwrap(), snapshot::save(&back).unwrap());
    assert!(
        snapshot::restore::<longcall::tracker::Tracker>(&text).is_err(),
        "another kind"
    );
}

#[test]
fn bad_config_is_a_typed_error() {
    for bad in [
        WaveConfig {
            timeout_seconds: 0,
            ..WaveConfig::default()
        },
        WaveConfig {
            min_round_interval_ms: 0,
            ..WaveConfig::default()
        },
    ] {
        assert_eq!(Wave::new(bad).unwrap_err().code(), "invalid_config");
    }
    // The backoff's own limits name their path from the wave's configuration.
    let mut bad = WaveConfig::default();
    bad.backoff.cap_ms = bad.backoff.initial_ms - 1;
    assert_eq!(
        Wave::new(bad).unwrap_err().to_string(),
        "invalid configuration: backoff.cap_ms: must not be below initial_ms"
    );
    let c: WaveConfig = serde_json::from_str(r#"{"wait_for":"any"}"#).unwrap();
    assert_eq!(
        (
            c.timeout_seconds,
            c.min_round_interval_ms,
            c.include_results
        ),
        (50, 500, true)
    );
}

#[test]
fn a_wave_of_terminal_jobs_is_satisfied_at_the_first_timeout() {
    let mut w = Wave::new(cfg(WaitFor::All)).unwrap();
    assert_eq!(
        w.drain(),
        [WaveOutput::Idle],
        "an empty wave has nothing to do"
    );
    w.handle_input(
        0,
        WaveInput::AddJob {
            job: job("x", Status::Failed),
            deadline: None,
        },
    )
    .unwrap();
    w.handle_input(
        0,
        WaveInput::AddJob {
            job: job("y", Status::Canceled),
            deadline: None,
        },
    )
    .unwrap();
    let outs = w.drain();
    assert!(!outs
        .iter()
        .any(|o| matches!(o, WaveOutput::Satisfied { .. })));
    assert_eq!(wake(&outs), Some(0));
    w.handle_timeout(0);
    let outs = w.drain();
    assert!(waits(&outs).is_empty());
    assert!(outs.contains(&WaveOutput::Satisfied { by: None }));
    assert_eq!(outs.last(), Some(&WaveOutput::Idle));
}
