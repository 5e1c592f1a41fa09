//! The tracker's guarantees, one scenario each (`docs/rules.md`, areas C, P and I).

use longcall::cancel::{ButtonState, CancelAnswer, JobErrorCode};
use longcall::outcome::Outcome;
use longcall::poll::{Jitter, PollPolicy};
use longcall::tracker::{Failure, Input, Output, Request, StopReason, Tracker, TrackerConfig};
use longcall::view::{InputRequest, JobView, RpcError, TaskView, ToolResult};
use longcall::{Model, Rule, Status};
use serde_json::json;

fn config() -> TrackerConfig {
    TrackerConfig {
        poll: PollPolicy {
            jitter: Jitter::None,
            min_interval_ms: 100,
            ..PollPolicy::default()
        },
        seed: 7,
        deadline_ms: None,
    }
}

fn task(status: Status) -> TaskView {
    TaskView {
        task_id: "t1".into(),
        status,
        status_message: None,
        created_at_ms: None,
        last_updated_at_ms: None,
        ttl_ms: longcall::view::Ttl::NotGiven,
        poll_interval_ms: None,
        input_requests: vec![],
        result: None,
        error: None,
    }
}

fn job(status: Status) -> JobView {
    JobView {
        id: "job_1".into(),
        status,
        result: None,
        error: None,
    }
}

fn wake(outs: &[Output]) -> Option<u64> {
    outs.iter().find_map(|o| match o {
        Output::WakeAt { at } => Some(*at),
        _ => None,
    })
}

fn sends(outs: &[Output]) -> Vec<&Request> {
    outs.iter()
        .filter_map(|o| match o {
            Output::Send { request } => Some(request),
            _ => None,
        })
        .collect()
}

fn settled(outs: &[Output]) -> Option<Outcome> {
    outs.iter().find_map(|o| match o {
        Output::Settled { outcome, .. } => Some(*outcome),
        _ => None,
    })
}

fn violations(outs: &[Output]) -> Vec<Rule> {
    outs.iter()
        .filter_map(|o| match o {
            Output::Violation { violation } => Some(violation.rule),
            _ => None,
        })
        .collect()
}

/// A tracker of `model` whose call `created` named, its cancel pressed at 5 ms; what it said so
/// far is drained (not under test).
fn pressed(model: Model, created: Input) -> Tracker {
    let mut t = Tracker::new(model, config()).unwrap();
    t.handle_input(0, created).unwrap();
    t.handle_input(5, Input::CancelPressed).unwrap();
    let _ = t.drain();
    t
}

/// Drives one poll: wait for the timer, check a Get goes out, answer with `answer`.
fn poll_once(t: &mut Tracker, answer: Input) -> (u64, Vec<Output>) {
    let at = t.poll_timeout().expect("a poll is armed");
    t.handle_timeout(at);
    let outs = t.drain();
    assert!(
        matches!(sends(&outs).first(), Some(Request::Get { .. })),
        "{outs:?}"
    );
    t.handle_input(at, answer).unwrap();
    (at, t.drain())
}

#[test]
fn job_cancel_too_late_keeps_waiting_and_never_shows_cancelled() {
    let mut t = Tracker::new(Model::Job, config()).unwrap();
    t.handle_input(
        0,
        Input::JobCreated {
            job: job(Status::Queued),
        },
    )
    .unwrap();
    let _ = t.drain(); // earlier outputs are not under test
    assert_eq!(t.button(), ButtonState::Available);
    t.handle_input(10, Input::CancelPressed).unwrap();
    let outs = t.drain();
    match sends(&outs).as_slice() {
        [Request::Cancel {
            idempotency_key: Some(k),
            ..
        }] => assert_eq!(k, "job_1:cancel"),
        other => panic!("{other:?}"),
    }
    // A second press while requesting is refused and sends nothing.
    assert_eq!(
        t.handle_input(11, Input::CancelPressed).unwrap_err().code(),
        "cancel_refused"
    );
    assert!(sends(&t.drain()).is_empty());
    let started = CancelAnswer::JobError {
        http_status: 409,
        code: JobErrorCode::JobGenerationAlreadyStarted,
        cancelable: Some(false),
    };
    t.handle_input(20, Input::CancelAnswered { answer: started })
        .unwrap();
    let outs = t.drain();
    assert_eq!(t.button(), ButtonState::TooLate);
    assert!(wake(&outs).is_some(), "keeps waiting: {outs:?}");
    poll_once(
        &mut t,
        Input::JobPolled {
            job: job(Status::Processing),
        },
    );
    let (_, outs) = poll_once(
        &mut t,
        Input::JobPolled {
            job: job(Status::Completed),
        },
    );
    assert_eq!(settled(&outs), Some(Outcome::Succeeded));
    assert_eq!(t.button(), ButtonState::FinishedFirst);
    assert!(!outs.iter().any(|o| matches!(
        o,
        Output::Button {
            state: ButtonState::Cancelled
        }
    )));
}

/// Rule O-13: a cancel answered with the job already completed carries no result: the call is
/// not settled by it (it would have settled `succeeded` with nothing to show); the confirming
/// poll settles it, with the result.
#[test]
fn a_cancel_answered_completed_is_settled_by_the_poll_with_the_result() {
    use longcall::status::JobStatus;
    let mut t = Tracker::new(Model::Job, config()).unwrap();
    t.handle_input(
        0,
        Input::JobCreated {
            job: job(Status::Queued),
        },
    )
    .unwrap();
    let _ = t.drain();
    t.handle_input(10, Input::CancelPressed).unwrap();
    let _ = t.drain();
    let finished = CancelAnswer::Job {
        status: JobStatus::Completed,
    };
    t.handle_input(20, Input::CancelAnswered { answer: finished })
        .unwrap();
    let outs = t.drain();
    assert_eq!(settled(&outs), None, "{outs:?}");
    assert_eq!(t.button(), ButtonState::FinishedFirst);
    let mut done = job(Status::Completed);
    done.result = Some(json!({"artifacts": [{"url": "https://x/1.png"}]}).into());
    let (_, outs) = poll_once(&mut t, Input::JobPolled { job: done });
    assert_eq!(settled(&outs), Some(Outcome::Succeeded));
    assert_eq!(
        t.record().result.map(|r| r.as_value().clone()),
        Some(json!({"artifacts": [{"url": "https://x/1.png"}]}))
    );
}

/// Rule C-20: a job cancel answered with the job still queued decided nothing, so the button
/// waits for the next status, and that status decides even when it repeats the one the tracker
/// holds: still queued, the cancel did not take and the button is live again.
#[test]
fn job_cancel_answer_that_decides_nothing_waits_for_the_next_status() {
    let created = Input::JobCreated {
        job: job(Status::Queued),
    };
    let mut t = pressed(Model::Job, created);
    let still_queued = CancelAnswer::Job {
        status: longcall::status::JobStatus::Queued,
    };
    t.handle_input(
        20,
        Input::CancelAnswered {
            answer: still_queued,
        },
    )
    .unwrap();
    let outs = t.drain();
    assert_eq!(violations(&outs), [Rule::CancelAnswerBreaksRevision]);
    // The status the answer carried is the answer's own word, not the next observation.
    assert_eq!(t.button(), ButtonState::Requesting);
    let (_, outs) = poll_once(
        &mut t,
        Input::JobPolled {
            job: job(Status::Queued),
        },
    );
    assert_eq!(t.button(), ButtonState::Available, "{outs:?}");
    assert!(outs.iter().any(|o| matches!(
        o,
        Output::Button {
            state: ButtonState::Available
        }
    )));
    t.handle_input(30_000, Input::CancelPressed).unwrap();
    assert_eq!(t.button(), ButtonState::Requesting);
}

/// Rules C-2, C-16.
#[test]
fn task_2026_ack_then_completed_is_finished_first() {
    let created = Input::TaskCreated {
        task: task(Status::Working),
    };
    let mut t = pressed(Model::Task2026, created);
    t.handle_input(
        6,
        Input::CancelAnswered {
            answer: CancelAnswer::Ack,
        },
    )
    .unwrap();
    let outs = t.drain();
    assert_eq!(t.button(), ButtonState::AcknowledgedPending);
    assert_eq!(settled(&outs), None, "an ack is not a promise");
    poll_once(
        &mut t,
        Input::TaskPolled {
            task: task(Status::Working),
        },
    );
    let mut done = task(Status::Completed);
    done.result = Some(ToolResult {
        is_error: false,
        value: json!({"content": []}).into(),
    });
    let (_, outs) = poll_once(&mut t, Input::TaskPolled { task: done });
    assert_eq!(settled(&outs), Some(Outcome::Succeeded));
    assert_eq!(t.button(), ButtonState::FinishedFirst);
}

/// Rule C-11: a task cancel that failed at the HTTP level (a proxy's 502 page, a 503) got no
/// MCP answer: the button reopens at once, as after a transport failure, and no revision is
/// said to be broken.
#[test]
fn a_task_cancel_failed_over_http_is_no_answer() {
    for model in [Model::Task2026, Model::Task2025] {
        let failed = |status| Input::RequestFailed {
            request: longcall::tracker::RequestKind::Cancel,
            failure: Failure::Http {
                status,
                code: None,
                retry_after_ms: None,
            },
        };
        let mut ends = Vec::new();
        for failure in [
            failed(502),
            failed(503),
            Input::RequestFailed {
                request: longcall::tracker::RequestKind::Cancel,
                failure: Failure::Transport,
            },
        ] {
            let created = Input::TaskCreated {
                task: task(Status::Working),
            };
            let mut t = pressed(model, created);
            t.handle_input(6, failure).unwrap();
            let outs = t.drain();
            assert_eq!(violations(&outs), vec![], "{model:?}");
            assert_eq!(t.button(), ButtonState::Available, "{model:?}");
            ends.push(outs);
        }
        assert!(ends.windows(2).all(|w| w[0] == w[1]), "{model:?}: {ends:?}");
    }
}

/// Rules I-1, I-2, I-7, I-9.
#[test]
fn input_key_is_asked_once_and_answered_once() {
    let mut t = Tracker::new(Model::Task2026, config()).unwrap();
    t.handle_input(
        0,
        Input::TaskCreated {
            task: task(Status::Working),
        },
    )
    .unwrap();
    let _ = t.drain(); // earlier outputs are not under test
    let mut ir = task(Status::InputRequired);
    ir.input_requests = vec![InputRequest {
        key: "k1".into(),
        request: json!({"method": "elicitation/create"}).into(),
    }];
    let (_, outs) = poll_once(&mut t, Input::TaskPolled { task: ir.clone() });
    let asks = outs
        .iter()
        .filter(|o| matches!(o, Output::AskUser { .. }))
        .count();
    assert_eq!(asks, 1);
    // The same key on the next poll is not a new question.
    let (at, outs) = poll_once(&mut t, Input::TaskPolled { task: ir.clone() });
    assert!(!outs.iter().any(|o| matches!(o, Output::AskUser { .. })));
    // Rule I-9: an answer that is not an object is refused, nothing sent, the key still open.
    for bare in [json!("yes"), json!(42), json!(["accept"]), json!(null)] {
        let e = t
            .handle_input(
                at,
                Input::InputAnswered {
                    key: "k1".into(),
                    response: bare.into(),
                },
            )
            .unwrap_err();
        assert_eq!(e.code(), "invalid_input");
        assert!(sends(&t.drain()).is_empty());
    }
    t.handle_input(
        at + 1,
        Input::InputAnswered {
            key: "k1".into(),
            response: json!({"action": "accept"}).into(),
        },
    )
    .unwrap();
    let outs = t.drain();
    assert!(
        matches!(sends(&outs).as_slice(), [Request::Update { responses, .. }] if responses.len() == 1)
    );
    let again = t.handle_input(
        at + 2,
        Input::InputAnswered {
            key: "k1".into(),
            response: json!({}).into(),
        },
    );
    assert_eq!(again.unwrap_err().code(), "invalid_input");
    // A poll right after the update may still show the key: not a question, not a violation.
    let (_, outs) = poll_once(&mut t, Input::TaskPolled { task: ir.clone() });
    assert!(!outs.iter().any(|o| matches!(o, Output::AskUser { .. })));
    assert!(violations(&outs).is_empty());
    // Once the task moved on, the same key again is a reuse.
    poll_once(
        &mut t,
        Input::TaskPolled {
            task: task(Status::Working),
        },
    );
    let (_, outs) = poll_once(&mut t, Input::TaskPolled { task: ir });
    assert_eq!(violations(&outs), vec![Rule::InputKeyReused]);
    assert!(!outs.iter().any(|o| matches!(o, Output::AskUser { .. })));
}

/// Rules L-6, O-10.
#[test]
fn first_terminal_status_stands() {
    let mut t = Tracker::new(Model::Task2026, config()).unwrap();
    t.handle_input(
        0,
        Input::TaskCreated {
            task: task(Status::Working),
        },
    )
    .unwrap();
    let _ = t.drain(); // earlier outputs are not under test
    let (at, outs) = poll_once(
        &mut t,
        Input::TaskPolled {
            task: task(Status::Cancelled),
        },
    );
    assert_eq!(settled(&outs), Some(Outcome::Cancelled));
    let mut flipped = task(Status::Completed);
    flipped.result = Some(ToolResult {
        is_error: false,
        value: json!({}).into(),
    });
    t.handle_input(at + 1, Input::TaskNotified { task: flipped })
        .unwrap();
    let outs = t.drain();
    assert_eq!(violations(&outs), vec![Rule::TerminalConflict]);
    assert_eq!(settled(&outs), None, "settled exactly once");
    assert_eq!(t.status(), Some(Status::Cancelled));
}

/// Rules P-3.
#[test]
fn server_interval_is_a_floor() {
    let mut t = Tracker::new(Model::Task2026, config()).unwrap();
    let mut created = task(Status::Working);
    created.poll_interval_ms = Some(5_000);
    t.handle_input(1_000, Input::TaskCreated { task: created })
        .unwrap();
    let outs = t.drain();
    assert!(wake(&outs).unwrap() >= 6_000, "{outs:?}");
    // Waking early sends nothing.
    t.handle_timeout(2_000);
    assert!(sends(&t.drain()).is_empty());
}

#[test]
fn unknown_id_on_poll_is_lost_never_a_retry() {
    let mut t = Tracker::new(Model::Task2025, config()).unwrap();
    t.handle_input(
        0,
        Input::TaskCreated {
            task: task(Status::Working),
        },
    )
    .unwrap();
    let _ = t.drain(); // earlier outputs are not under test
    let at = t.poll_timeout().unwrap();
    t.handle_timeout(at);
    let _ = t.drain(); // earlier outputs are not under test
    let error = RpcError {
        code: -32602,
        message: "Task not found".into(),
        data: None,
    };
    t.handle_input(
        at,
        Input::RequestFailed {
            request: longcall::tracker::RequestKind::Get,
            failure: Failure::Rpc { error },
        },
    )
    .unwrap();
    let outs = t.drain();
    assert_eq!(settled(&outs), Some(Outcome::Lost));
    assert_eq!(outs.last(), Some(&Output::Idle));
    assert!(sends(&outs).is_empty());
}

#[test]
fn task_2025_failed_fetches_the_result_before_settling() {
    let mut t = Tracker::new(Model::Task2025, config()).unwrap();
    t.handle_input(
        0,
        Input::TaskCreated {
            task: task(Status::Working),
        },
    )
    .unwrap();
    let _ = t.drain(); // earlier outputs are not under test
    let at = t.poll_timeout().unwrap();
    t.handle_timeout(at);
    let _ = t.drain(); // earlier outputs are not under test
    t.handle_input(
        at,
        Input::TaskPolled {
            task: task(Status::Failed),
        },
    )
    .unwrap();
    let outs = t.drain();
    assert!(
        matches!(sends(&outs).as_slice(), [Request::FetchResult { .. }]),
        "{outs:?}"
    );
    assert_eq!(settled(&outs), None);
    t.handle_input(
        at + 1,
        Input::ResultFetched {
            result: ToolResult {
                is_error: true,
                value: json!({"isError": true}).into(),
            },
        },
    )
    .unwrap();
    assert_eq!(settled(&t.drain()), Some(Outcome::ToolError));
}

#[test]
fn deadline_ends_watching_not_the_call() {
    let mut cfg = config();
    cfg.deadline_ms = Some(1_500);
    let mut t = Tracker::new(Model::Job, cfg).unwrap();
    t.handle_input(
        0,
        Input::JobCreated {
            job: job(Status::Queued),
        },
    )
    .unwrap();
    let _ = t.drain(); // earlier outputs are not under test
    let (at, outs) = poll_once(
        &mut t,
        Input::JobPolled {
            job: job(Status::Processing),
        },
    );
    // No poll fits before the deadline, yet watching lasts until it: a notification may still
    // come. Nothing is sent; the next wake-up is the deadline itself.
    assert!(at < 1_500 && sends(&outs).is_empty(), "{outs:?}");
    assert_eq!(outs.last(), Some(&Output::WakeAt { at: 1_500 }));
    t.handle_timeout(1_499);
    assert_eq!(t.drain(), [Output::WakeAt { at: 1_500 }], "not before it");
    t.handle_timeout(1_500);
    let outs = t.drain();
    assert!(
        outs.contains(&Output::Stopped {
            reason: StopReason::Deadline
        }),
        "{outs:?}"
    );
    assert!(!outs.iter().any(|o| matches!(
        o,
        Output::Send {
            request: Request::Cancel { .. }
        }
    )));
    assert_eq!(t.outcome(), None);
}

#[test]
fn create_unanswered_never_resubmits() {
    let mut t = Tracker::new(Model::Job, config()).unwrap();
    t.handle_input(0, Input::CreateUnanswered).unwrap();
    let outs = t.drain();
    assert_eq!(
        outs,
        vec![
            Output::Stopped {
                reason: StopReason::CreateUnanswered
            },
            Output::Idle
        ]
    );
}

/// E-11, A-4: a submit refused for good settles the job `failed` with the API's error, in the
/// record; it is a job's input only, and only before the job is named.
#[test]
fn a_submit_refused_for_good_settles_failed_with_its_error() {
    let error = json!({"code": "insufficient_credits", "message": "x"});
    let refused = || Input::SubmitRefused {
        http_status: 402,
        error: Some(error.clone().into()),
    };
    let mut t = Tracker::new(Model::Job, config()).unwrap();
    t.handle_input(0, refused()).unwrap();
    let outs = t.drain();
    assert_eq!(settled(&outs), Some(Outcome::Failed));
    assert!(sends(&outs).is_empty());
    assert_eq!(outs.last(), Some(&Output::Idle));
    let record = t.record();
    assert_eq!(record.outcome, Some(Outcome::Failed));
    assert_eq!(record.error, Some(error.clone().into()));
    assert_eq!(
        t.handle_input(1, refused()).map_err(|e| e.code()),
        Err("invalid_input"),
        "settled once"
    );

    let mut task = Tracker::new(Model::Task2026, config()).unwrap();
    assert_eq!(
        task.handle_input(0, refused()).map_err(|e| e.code()),
        Err("wrong_model")
    );

    let mut named = Tracker::new(Model::Job, config()).unwrap();
    named
        .handle_input(
            0,
            Input::JobCreated {
                job: job(Status::Queued),
            },
        )
        .unwrap();
    assert_eq!(
        named.handle_input(1, refused()).map_err(|e| e.code()),
        Err("invalid_input")
    );
    assert_eq!(named.outcome(), None);
}

/// Rules S-4.
#[test]
fn snapshot_mid_flight_resumes_identically() {
    use longcall::snapshot;
    let mut t = Tracker::new(Model::Task2026, config()).unwrap();
    t.handle_input(
        0,
        Input::TaskCreated {
            task: task(Status::Working),
        },
    )
    .unwrap();
    let _ = t.drain(); // earlier outputs are not under test
    let saved = snapshot::save(&t).unwrap();
    let mut r: Tracker = snapshot::restore(&saved).unwrap();
    assert_eq!(r, t);
    for tr in [&mut t, &mut r] {
        let at = tr.poll_timeout().unwrap();
        tr.handle_timeout(at);
    }
    assert_eq!(t.drain(), r.drain());
}

/// The allocation-free poll entry is the same machine as the structured one: every model, every
/// status as a poll answer, every payload shape, with and without a server interval.
#[test]
fn handle_polled_equals_structured_polls() {
    use longcall::outcome::Payload;
    use longcall::tracker::Polled;
    for model in Model::ALL {
        for &status in Status::of(model) {
            for payload in [
                Payload::NONE,
                Payload::OK,
                Payload::TOOL_ERROR,
                Payload::ERROR,
            ] {
                for interval in [None, Some(5_000)] {
                    let mut a = Tracker::new(model, config()).unwrap();
                    let mut b = Tracker::new(model, config()).unwrap();
                    let (created, polled) = if model == Model::Job {
                        let j = |s| JobView {
                            id: "job_1".into(),
                            status: s,
                            result: None,
                            error: None,
                        };
                        (
                            Input::JobCreated {
                                job: j(Status::Queued),
                            },
                            Input::JobPolled { job: j(status) },
                        )
                    } else {
                        let mut t = task(status);
                        t.poll_interval_ms = interval;
                        t.result = payload.result.map(|is_error| ToolResult {
                            is_error,
                            value: json!({}).into(),
                        });
                        t.error = payload.error.then(|| RpcError {
                            code: -32603,
                            message: String::new(),
                            data: None,
                        });
                        (
                            Input::TaskCreated {
                                task: task(Status::Working),
                            },
                            Input::TaskPolled { task: t },
                        )
                    };
                    for tr in [&mut a, &mut b] {
                        tr.handle_input(0, created.clone()).unwrap();
                        let _ = tr.drain(); // earlier outputs are not under test
                        let at = tr.poll_timeout().unwrap();
                        tr.handle_timeout(at);
                        let _ = tr.drain(); // earlier outputs are not under test
                    }
                    let ra = a.handle_input(1_000, polled);
                    let p = Polled {
                        status,
                        poll_interval_ms: if model == Model::Job { None } else { interval },
                        ttl_ms: longcall::view::Ttl::NotGiven,
                        payload: if model == Model::Job {
                            Payload::NONE
                        } else {
                            payload
                        },
                    };
                    let rb = b.handle_polled(1_000, p);
                    assert_eq!(ra.map_err(|e| e.code()), rb.map_err(|e| e.code()));
                    // The numbers-only path carries no payload values: only those may differ.
                    let strip = |outs: Vec<Output>| -> Vec<Output> {
                        outs.into_iter()
                            .map(|o| match o {
                                Output::Settled {
                                    outcome, status, ..
                                } => Output::Settled {
                                    outcome,
                                    status,
                                    result: None,
                                    error: None,
                                },
                                o => o,
                            })
                            .collect()
                    };
                    assert_eq!(
                        strip(a.drain()),
                        strip(b.drain()),
                        "{model} {status} {payload:?} {interval:?}"
                    );
                    let (mut ra, rb) = (a.record(), b.record());
                    ra.result = None;
                    ra.error = None;
                    assert_eq!(ra, rb);
                }
            }
        }
    }
}

/// Rule P-7: an answer without `ttlMs` says nothing about the TTL, so the one in force stands
/// (the next poll is still pulled in to it); `null` lifts it (the poll keeps its backoff).
#[test]
fn absent_ttl_keeps_the_deadline_and_null_lifts_it() {
    use longcall::view::Ttl;
    let after = |answer: Ttl| {
        let mut t = Tracker::new(Model::Task2026, config()).unwrap();
        let created = task(Status::Working).with_ttl_ms(2_500);
        t.handle_input(0, Input::TaskCreated { task: created })
            .unwrap();
        assert_eq!(wake(&t.drain()), Some(1_000));
        let (_, outs) = poll_once(
            &mut t,
            Input::TaskPolled {
                task: task(Status::Working).with_ttl(answer),
            },
        );
        (wake(&outs), settled(&outs))
    };
    assert_eq!(after(Ttl::NotGiven), (Some(2_500), None));
    assert_eq!(after(Ttl::Ms(2_500)), (Some(2_500), None));
    assert_eq!(after(Ttl::Unlimited), (Some(3_000), None));
    assert_eq!(after(Ttl::Ms(60_000)), (Some(3_000), None));
}

/// Rule P-7: a handle resumed with `watch` counts its TTL from the first answer that states one,
/// not from each answer: re-anchored at every poll, the TTL's end slid past the server's, and
/// the last look before it came after it.
#[test]
fn a_watched_handle_counts_its_ttl_from_the_first_answer() {
    use longcall::view::Ttl;
    let mut t = Tracker::new(Model::Task2026, config()).unwrap();
    t.watch("t1").unwrap();
    assert!(matches!(
        sends(&t.drain()).first(),
        Some(Request::Get { .. })
    ));
    let working = || Input::TaskPolled {
        task: task(Status::Working).with_ttl(Ttl::Ms(2_500)),
    };
    t.handle_input(5, working()).unwrap();
    assert_eq!(wake(&t.drain()), Some(1_005));
    let (_, outs) = poll_once(&mut t, working());
    assert_eq!(
        wake(&outs),
        Some(2_505),
        "the backoff's 3_005 is pulled in to the TTL's end, counted from the first answer"
    );
}

/// The entry points for inputs that carry no payload (`handle_created`, `handle_cancel_pressed`,
/// `handle_cancel_answered`, `handle_update_acked`, `handle_request_failed_http`,
/// `handle_stop_watching`) are the same machine as `handle_input`: for every model and every
/// first status, a script of such inputs (cancel presses and answers, failures of every request
/// with and without an answer, Retry-After, a lost handle, inputs after stopping) gives the same
/// errors, outputs and state either way.
#[test]
fn payload_free_entries_equal_handle_input() {
    use longcall::tracker::RequestKind;
    #[derive(Clone, Copy, Debug)]
    enum Step {
        Created,
        Timeout,
        Press,
        Answer(CancelAnswer),
        Acked,
        Failed(RequestKind, Option<u16>, JobErrorCode, Option<u64>),
        Stop,
    }
    let script = [
        Step::Press,
        Step::Created,
        Step::Created,
        Step::Timeout,
        Step::Press,
        Step::Failed(
            RequestKind::Cancel,
            Some(429),
            JobErrorCode::None,
            Some(5_000),
        ),
        Step::Answer(CancelAnswer::NoAnswer),
        Step::Press,
        Step::Answer(CancelAnswer::JobError {
            http_status: 409,
            code: JobErrorCode::ALL[0],
            cancelable: None,
        }),
        Step::Press,
        Step::Answer(CancelAnswer::Ack),
        Step::Press,
        Step::Answer(CancelAnswer::RpcError { code: -32602 }),
        Step::Acked,
        Step::Timeout,
        Step::Failed(RequestKind::Get, None, JobErrorCode::None, None),
        Step::Failed(RequestKind::Update, Some(500), JobErrorCode::None, None),
        Step::Failed(RequestKind::FetchResult, None, JobErrorCode::None, None),
        Step::Failed(RequestKind::ContinueCall, None, JobErrorCode::None, None),
        Step::Timeout,
        Step::Failed(RequestKind::Get, Some(404), JobErrorCode::None, None),
        Step::Failed(RequestKind::Get, Some(404), JobErrorCode::Other, None),
        Step::Failed(RequestKind::Get, Some(404), JobErrorCode::NotFound, None),
        Step::Stop,
        Step::Press,
        Step::Acked,
        Step::Created,
        Step::Stop,
    ];
    for model in Model::ALL {
        for &first in Status::of(model) {
            let mut a = Tracker::new(model, config()).unwrap();
            let mut b = Tracker::new(model, config()).unwrap();
            let mut now = 0;
            for step in script {
                now += 1_000;
                let (ra, rb) = match step {
                    Step::Created => {
                        let input = if model == Model::Job {
                            Input::JobCreated { job: job(first) }
                        } else {
                            let mut t = task(first);
                            t.poll_interval_ms = Some(2_000);
                            Input::TaskCreated { task: t }
                        };
                        (
                            a.handle_input(now, input),
                            b.handle_created(
                                now,
                                if model == Model::Job { "job_1" } else { "t1" },
                                first,
                                Some(2_000),
                            ),
                        )
                    }
                    Step::Timeout => {
                        now = a.poll_timeout().unwrap_or(now);
                        a.handle_timeout(now);
                        b.handle_timeout(now);
                        (Ok(()), Ok(()))
                    }
                    Step::Press => (
                        a.handle_input(now, Input::CancelPressed),
                        b.handle_cancel_pressed(),
                    ),
                    Step::Answer(answer) => (
                        a.handle_input(now, Input::CancelAnswered { answer }),
                        b.handle_cancel_answered(now, answer),
                    ),
                    Step::Acked => (
                        a.handle_input(now, Input::UpdateAcked),
                        b.handle_update_acked(),
                    ),
                    Step::Failed(request, http, code, retry) => {
                        let failure = match http {
                            Some(status) => Failure::Http {
                                status,
                                code: (code != JobErrorCode::None)
                                    .then(|| code.as_str().to_owned()),
                                retry_after_ms: retry,
                            },
                            None => Failure::Transport,
                        };
                        (
                            a.handle_input(now, Input::RequestFailed { request, failure }),
                            b.handle_request_failed_http(now, request, http, code, retry),
                        )
                    }
                    Step::Stop => {
                        b.handle_stop_watching();
                        (a.handle_input(now, Input::StopWatching), Ok(()))
                    }
                };
                let what = format!("{model} {first} {step:?}");
                assert_eq!(ra.map_err(|e| e.code()), rb.map_err(|e| e.code()), "{what}");
                assert_eq!(a.drain(), b.drain(), "{what}");
                assert_eq!(a, b, "{what}");
            }
        }
    }
}

#[test]
fn a_bad_poll_policy_is_named_by_its_path_in_the_config() {
    let config = TrackerConfig {
        poll: PollPolicy {
            multiplier_percent: 90,
            ..PollPolicy::default()
        },
        ..TrackerConfig::default()
    };
    let e = Tracker::new(Model::Job, config).unwrap_err();
    assert_eq!(e.code(), "invalid_config");
    assert_eq!(
        e.to_string(),
        "invalid configuration: poll.multiplier_percent: must be at least 100 (a backoff that shrinks is not a backoff)"
    );
}

/// S-8: a server asking for forever gets the latest time a JavaScript host can hold.
#[test]
fn a_server_asking_for_forever_gets_the_latest_time_a_host_can_hold() {
    use longcall::time::LATEST;
    for interval in [LATEST, u64::MAX] {
        let mut t = Tracker::new(Model::Task2026, config()).unwrap();
        let mut created = task(Status::Working);
        created.poll_interval_ms = Some(interval);
        t.handle_input(1_000, Input::TaskCreated { task: created })
            .unwrap();
        let outs = t.drain();
        // Due at LATEST (2^53 - 1, which a JavaScript number holds), not past it.
        assert_eq!(wake(&outs), Some(LATEST), "interval {interval}");
        assert_eq!(t.poll_timeout(), Some(LATEST));
        // Passing it back in is a time like any other: nothing early, the poll at it.
        t.handle_timeout(LATEST - 1);
        assert!(sends(&t.drain()).is_empty());
        t.handle_timeout(LATEST);
        assert_eq!(sends(&t.drain()).len(), 1);
    }
}

/// A queued job whose first status poll is answered `status` with error `code` and
/// `retry_after_ms`: when that poll went, and the outputs of its failure.
fn first_poll_failed(
    status: u16,
    code: Option<&str>,
    retry_after_ms: Option<u64>,
) -> (u64, Vec<Output>) {
    let mut t = Tracker::new(Model::Job, config()).unwrap();
    t.handle_input(
        0,
        Input::JobCreated {
            job: job(Status::Queued),
        },
    )
    .unwrap();
    let at = t.poll_timeout().unwrap();
    t.handle_timeout(at);
    let _ = t.drain(); // earlier outputs are not under test
    let failure = Failure::Http {
        status,
        code: code.map(String::from),
        retry_after_ms,
    };
    let request = longcall::tracker::RequestKind::Get;
    t.handle_input(at, Input::RequestFailed { request, failure })
        .unwrap();
    (at, t.drain())
}

/// O-6, D-6: a job poll's 404 is the job lost only when it says `not_found`; a 404 naming
/// another code (a route the server does not have) or none (a proxy's HTML page) is a failed
/// poll, and polling goes on.
#[test]
fn a_job_404_is_lost_only_when_it_is_the_jobs() {
    for (code, lost) in [
        (Some("not_found"), true),
        (None, false),
        (Some("route_not_found"), false),
    ] {
        let (_, outs) = first_poll_failed(404, code, None);
        if lost {
            assert_eq!(settled(&outs), Some(Outcome::Lost), "{code:?}");
        } else {
            assert_eq!(settled(&outs), None, "{code:?}");
            assert!(wake(&outs).is_some(), "{code:?}: the next poll is armed");
        }
    }
}

/// P-4: a status poll answered 503 with `Retry-After` is not asked again before it, as a 429's
/// is not; a 503 without one falls back on the backoff.
#[test]
fn a_503_retry_after_holds_the_next_poll_back() {
    for (status, retry_after_ms) in [(429, Some(5_000)), (503, Some(5_000)), (503, None)] {
        let (at, outs) = first_poll_failed(status, None, retry_after_ms);
        let next = wake(&outs).expect("the next poll is armed");
        match retry_after_ms {
            Some(ms) => assert!(
                next >= at + ms,
                "{status}: next poll at {next}, before {}",
                at + ms
            ),
            None => assert!(
                next < at + 5_000,
                "{status} without Retry-After: the backoff, {next}"
            ),
        }
    }
}
