//! The per-event rule paths allocate nothing: transition and observation checks, cancel
//! decisions and the button, admission advice, a poll-schedule step and the tracker's
//! allocation-free poll entry, counted by the `allocation-counter` crate's allocator.

fn allocations_in(f: impl FnOnce()) -> u64 {
    allocation_counter::measure(f).count_total
}

#[test]
fn per_event_paths_do_not_allocate() {
    use longcall::admission::{classify, ErrorCode, SubmitAnswer, Submitted};
    use longcall::cancel::{
        classify_answer, window, CancelAnswer, CancelButton, CancelVerdict, JobErrorCode,
    };
    use longcall::lifecycle::{observe, transition};
    use longcall::outcome::Payload;
    use longcall::poll::{Jitter, PollPolicy, PollSchedule};
    use longcall::tracker::{Input, Output, Polled, Tracker, TrackerConfig};
    use longcall::view::JobView;
    use longcall::{Model, Status};

    // Everything that allocates once is built before counting.
    let mut schedule = PollSchedule::new(
        PollPolicy {
            jitter: Jitter::Full,
            ..PollPolicy::default()
        },
        9,
    )
    .unwrap();
    schedule.handle_server_interval(Some(700));
    let mut button = CancelButton::new(Model::Job);
    let mut tracker = Tracker::new(Model::Job, TrackerConfig::default()).unwrap();
    let job = JobView {
        id: "job_1".into(),
        status: Status::Queued,
        result: None,
        error: None,
    };
    tracker.handle_input(0, Input::JobCreated { job }).unwrap();
    while !matches!(tracker.poll_output(), Output::WakeAt { .. } | Output::Idle) {}
    let started = CancelAnswer::JobError {
        http_status: 409,
        code: JobErrorCode::JobGenerationAlreadyStarted,
        cancelable: Some(false),
    };

    let n = allocations_in(|| {
        for model in Model::ALL {
            for &a in Status::of(model) {
                for &b in Status::of(model) {
                    let _ = std::hint::black_box(transition(model, a, b));
                    let _ = std::hint::black_box(observe(model, a, b));
                }
                let _ = std::hint::black_box(window(model, a));
            }
        }
        for answer in [
            CancelAnswer::Ack,
            started,
            CancelAnswer::NoAnswer,
            CancelAnswer::Job {
                status: longcall::status::JobStatus::Canceled,
            },
        ] {
            let _ = std::hint::black_box(classify_answer(Model::Job, answer));
        }
        button.handle_status(Status::Queued).unwrap();
        button.press().unwrap();
        button.handle_verdict(CancelVerdict::TooLate).unwrap();
        let _ = button.handle_status(Status::Completed);
        for status in [202, 402, 429, 503] {
            let a = SubmitAnswer {
                http_status: status,
                error_code: ErrorCode::None,
                retry_after_ms: Some(1_000),
            };
            let _ = std::hint::black_box(classify(&Submitted::Answer(a)));
        }
        let mut now = 0;
        for _ in 0..100 {
            now += 1_000;
            let _ = std::hint::black_box(schedule.next(now));
        }
        // The tracker: a repeated poll answer through the allocation-free entry, drained.
        for i in 0..100u64 {
            let polled = Polled {
                status: Status::Processing,
                poll_interval_ms: None,
                ttl_ms: longcall::view::Ttl::NotGiven,
                payload: Payload::NONE,
            };
            let _ = tracker.handle_polled(10_000 + i * 1_000, polled);
            while !matches!(tracker.poll_output(), Output::WakeAt { .. } | Output::Idle) {}
        }
    });
    assert_eq!(n, 0, "allocations on per-event paths");
}
