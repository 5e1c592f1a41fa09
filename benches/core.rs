//! Native benchmarks of the per-event paths (divan reports medians).
fn main() {
    divan::main();
}

#[divan::bench]
fn transition_check() -> longcall::lifecycle::Observation {
    use longcall::{lifecycle::observe, Model, Status};
    observe(
        divan::black_box(Model::Job),
        divan::black_box(Status::Queued),
        divan::black_box(Status::Completed),
    )
    .unwrap_or(longcall::lifecycle::Observation::Regression)
}

/// One poll-schedule step: a fresh-looking schedule per sample would measure construction, so
/// the schedule is reused and the clock advanced; `max_polls` is unlimited, so it never stops.
#[divan::bench]
fn poll_schedule_next(bencher: divan::Bencher) {
    use longcall::poll::{PollPolicy, PollSchedule, PollStep};
    let mut schedule = PollSchedule::new(PollPolicy::default(), 42).unwrap_or_else(|_| {
        unreachable!("the default policy is valid");
    });
    schedule.handle_server_interval(Some(2_000));
    schedule.set_ttl_deadline(Some(u64::MAX / 2));
    let mut now = 0u64;
    bencher.bench_local(|| {
        let step = schedule.next(divan::black_box(now));
        if let PollStep::At(at) = step {
            now = at;
        }
        step
    });
}

/// One admission classification of a submit answer (walks the data table).
#[divan::bench(args = [202, 429, 503, 404])]
fn admission_classify(status: u16) -> longcall::admission::Advice {
    use longcall::admission::{classify, ErrorCode, SubmitAnswer, Submitted};
    classify(divan::black_box(&Submitted::Answer(SubmitAnswer {
        http_status: status,
        error_code: ErrorCode::None,
        retry_after_ms: Some(1_000),
    })))
}

/// One cancel decision: classify a job's 409 answer, then move the button with the verdict.
/// (`sample_size` is fixed: a cold first sample made divan auto-tune to one iteration per
/// sample, below the timer precision.)
#[divan::bench(sample_size = 10_000)]
fn cancel_decision(bencher: divan::Bencher) {
    use longcall::cancel::{
        classify_answer, CancelAnswer, CancelButton, CancelVerdict, JobErrorCode,
    };
    use longcall::{Model, Status};
    let mut button = CancelButton::new(Model::Job);
    let _ = button.handle_status(Status::Queued);
    let _ = button.press();
    let answer = CancelAnswer::JobError {
        http_status: 409,
        code: JobErrorCode::JobGenerationAlreadyStarted,
        cancelable: Some(false),
    };
    bencher.bench_local(|| {
        let verdict = classify_answer(divan::black_box(Model::Job), divan::black_box(answer))
            .unwrap_or(CancelVerdict::RequestFailed);
        // `too_late` is not final, so every iteration takes the same path.
        button.handle_verdict(divan::black_box(verdict))
    });
}

/// The cancel window of a job seen `processing`.
#[divan::bench]
fn cancel_window() -> Result<longcall::cancel::Window, longcall::Error> {
    use longcall::{Model, Status};
    longcall::cancel::window(
        divan::black_box(Model::Job),
        divan::black_box(Status::Processing),
    )
}

fn working_task() -> longcall::view::TaskView {
    longcall::view::TaskView {
        task_id: "task_0123456789abcdef".into(),
        status: longcall::Status::Working,
        status_message: Some("rendering".into()),
        created_at_ms: Some(1_700_000_000_000),
        last_updated_at_ms: Some(1_700_000_000_500),
        ttl_ms: None,
        poll_interval_ms: Some(2_000),
        input_requests: Vec::new(),
        result: None,
        error: None,
    }
}

fn working_tracker() -> longcall::tracker::Tracker {
    use longcall::tracker::{Input, Tracker, TrackerConfig};
    let mut t = Tracker::new(longcall::Model::Task2026, TrackerConfig::default())
        .unwrap_or_else(|_| unreachable!("the default config is valid"));
    let _ = t.handle_input(
        0,
        Input::TaskCreated {
            task: working_task(),
        },
    );
    let _ = t.drain();
    t
}

/// Tracker step on an already-parsed answer: a repeated `working` poll, fed and drained. The
/// `TaskView` is cloned from a pre-built one (two small `String`s: `task_id`, `status_message`).
#[divan::bench]
fn tracker_step_working_poll(bencher: divan::Bencher) {
    use longcall::tracker::{Input, Output};
    let mut t = working_tracker();
    let task = working_task();
    let mut now = 1_000u64;
    bencher.bench_local(|| {
        now += 2_000;
        let _ = t.handle_input(now, Input::TaskPolled { task: task.clone() });
        loop {
            match t.poll_output() {
                Output::WakeAt { at } => break at,
                Output::Idle => break 0,
                _ => {}
            }
        }
    });
}

/// The clone alone, to see how much of the tracker step it is.
#[divan::bench]
fn tracker_step_clone_only(bencher: divan::Bencher) {
    let task = working_task();
    bencher.bench_local(|| divan::black_box(&task).clone());
}

/// The same step with the view built outside the timed section (no clone, no allocation of
/// the input): divan's `with_inputs` hands each iteration its own `TaskView`.
#[divan::bench]
fn tracker_step_working_poll_no_clone(bencher: divan::Bencher) {
    use longcall::tracker::{Input, Output};
    let mut t = working_tracker();
    let mut now = 1_000u64;
    bencher
        .with_inputs(working_task)
        .bench_local_values(|task| {
            now += 2_000;
            let _ = t.handle_input(now, Input::TaskPolled { task });
            loop {
                match t.poll_output() {
                    Output::WakeAt { at } => break at,
                    Output::Idle => break 0,
                    _ => {}
                }
            }
        });
}

/// One wave round of 100 jobs: plan (EDF, chunks of 20), then every call answered with a
/// timeout partial snapshot (all still `processing`), drained until the next wake.
#[divan::bench]
fn wave_round_100_jobs(bencher: divan::Bencher) {
    use longcall::batch::WaitFor;
    use longcall::view::JobView;
    use longcall::wave::{Wave, WaveConfig, WaveInput, WaveOutput};
    use longcall::Status;
    let mut wave = Wave::new(WaveConfig {
        wait_for: WaitFor::All,
        ..WaveConfig::default()
    })
    .unwrap_or_else(|_| unreachable!("the default config is valid"));
    for i in 0..100u64 {
        let job = JobView {
            id: format!("job_{i:03}"),
            status: Status::Queued,
            result: None,
            error: None,
        };
        let _ = wave.handle_input(
            0,
            WaveInput::AddJob {
                job,
                deadline: Some(u64::MAX / 2 + (i * 7919) % 100),
            },
        );
    }
    let _ = wave.drain();
    let answers: Vec<Vec<JobView>> = (0..5)
        .map(|c| {
            (0..20)
                .map(|k| JobView {
                    id: format!("job_{:03}", c * 20 + k),
                    status: Status::Processing,
                    result: None,
                    error: None,
                })
                .collect()
        })
        .collect();
    let mut now = 0u64;
    bencher.bench_local(|| {
        wave.handle_timeout(now);
        let mut calls = Vec::with_capacity(5);
        loop {
            match wave.poll_output() {
                WaveOutput::Wait { call_id, .. } => calls.push(call_id),
                WaveOutput::WakeAt { .. } | WaveOutput::Idle => break,
                _ => {}
            }
        }
        for (call_id, jobs) in calls.into_iter().zip(answers.iter()) {
            let _ = wave.handle_input(
                now + 10,
                WaveInput::WaitAnswered {
                    call_id,
                    jobs: jobs.clone(),
                },
            );
        }
        let mut next = 0;
        loop {
            match wave.poll_output() {
                WaveOutput::WakeAt { at } => {
                    next = at;
                    break;
                }
                WaveOutput::Idle => break,
                _ => {}
            }
        }
        now = next;
    });
}

/// A typical 2026 `tasks/get` answer as fastmcp-tasks sends it (from tests/traces).
const GET_ANSWER: &[u8] = br#"{"jsonrpc":"2.0","id":3,"result":{"taskId":"O7OCcp1ePmaBwKdFHFERdGPObKJyIc38bgNrR_XmiSc","status":"working","createdAt":"2026-11-29T15:07:54.708861+00:00","lastUpdatedAt":"2026-11-29T15:07:54.720461+00:00","ttlMs":900000,"pollIntervalMs":200,"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"fastmcp-tasks-probe","version":"4.1.4"}}}}"#;

/// The numbers-only entry (`Tracker::handle_polled`): no view, no allocation.
#[divan::bench]
fn tracker_step_handle_polled(bencher: divan::Bencher) {
    use longcall::outcome::Payload;
    use longcall::tracker::{Output, Polled};
    let mut t = working_tracker();
    let mut now = 1_000u64;
    let polled = Polled {
        status: longcall::Status::Working,
        poll_interval_ms: Some(200),
        ttl_ms: None,
        payload: Payload::NONE,
    };
    bencher.bench_local(|| {
        now += 2_000;
        let _ = t.handle_polled(now, divan::black_box(polled));
        loop {
            match t.poll_output() {
                Output::WakeAt { at } => break at,
                Output::Idle => break 0,
                _ => {}
            }
        }
    });
}

/// Parsing a typical `tasks/get` answer from bytes into a `TaskView` (guarded JSON reading).
#[divan::bench]
fn parse_tasks_get_2026() -> usize {
    use longcall::wire::{mcp2026, Limits};
    match mcp2026::parse_get_response(divan::black_box(GET_ANSWER), &Limits::DEFAULT) {
        Ok((_, longcall::wire::Answer::Result(p))) => p.value.task_id.len(),
        _ => 0,
    }
}

/// The whole per-answer path of a host: parse the bytes, hand the view to the tracker, drain.
#[divan::bench]
fn tracker_step_with_parse(bencher: divan::Bencher) {
    use longcall::tracker::{Input, Output, Tracker, TrackerConfig};
    use longcall::wire::{mcp2026, Answer, Limits};
    let mut t = Tracker::new(longcall::Model::Task2026, TrackerConfig::default())
        .unwrap_or_else(|_| unreachable!("the default config is valid"));
    let first = match mcp2026::parse_get_response(GET_ANSWER, &Limits::DEFAULT) {
        Ok((_, Answer::Result(p))) => p.value,
        _ => unreachable!("the sample answer parses"),
    };
    let _ = t.handle_input(0, Input::TaskCreated { task: first });
    let _ = t.drain();
    let mut now = 1_000u64;
    bencher.bench_local(|| {
        now += 2_000;
        if let Ok((_, Answer::Result(p))) =
            mcp2026::parse_get_response(divan::black_box(GET_ANSWER), &Limits::DEFAULT)
        {
            let _ = t.handle_input(now, Input::TaskPolled { task: p.value });
        }
        loop {
            match t.poll_output() {
                Output::WakeAt { at } => break at,
                Output::Idle => break 0,
                _ => {}
            }
        }
    });
}

/// The endpoint's per-answer path, bytes to drained events: a typical 2026 `tasks/get` answer
/// (`working`, as above) handed to `CallEndpoint::handle_message` with the poll in flight, then
/// every event drained up to the `WakeAt`. The endpoint is cloned outside the timing.
#[divan::bench]
fn endpoint_tasks_get_2026(bencher: divan::Bencher) {
    use longcall::endpoint::{CallEndpoint, Config, Event};
    let handle = "O7OCcp1ePmaBwKdFHFERdGPObKJyIc38bgNrR_XmiSc";
    let mut ep = CallEndpoint::watch(longcall::Model::Task2026, handle, Config::default())
        .unwrap_or_else(|_| unreachable!("the default config is valid"));
    while !matches!(ep.poll_event(), Event::WakeAt { .. } | Event::Idle) {}
    // The watch's first poll is request 1.
    let text = String::from_utf8_lossy(GET_ANSWER).replace("\"id\":3", "\"id\":1");
    let bytes = text.into_bytes();
    bencher.with_inputs(|| ep.clone()).bench_local_refs(|ep| {
        ep.handle_message(1_000, divan::black_box(&bytes));
        loop {
            match ep.poll_event() {
                Event::WakeAt { at } => break at,
                Event::Idle => break 0,
                _ => {}
            }
        }
    });
}
