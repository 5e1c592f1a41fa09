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
    use longcall::cancel::{classify_answer, CancelAnswer, CancelButton, JobErrorCode};
    use longcall::{Model, Status};
    let mut pressed = CancelButton::new(Model::Job);
    let _ = pressed.handle_status(Status::Queued);
    let _ = pressed.press();
    let answer = CancelAnswer::JobError {
        http_status: 409,
        code: JobErrorCode::JobGenerationAlreadyStarted,
        cancelable: Some(false),
    };
    bencher.bench_local(|| {
        let verdict = classify_answer(divan::black_box(Model::Job), divan::black_box(answer));
        // A button with its request out each time (an answer is taken once per request).
        let mut button = pressed.clone();
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
        ttl_ms: longcall::view::Ttl::Unlimited,
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
        ttl_ms: longcall::view::Ttl::NotGiven,
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

/// Drains a watch list like a host whose store write is instant: confirms every record at its
/// latest version (serialization is measured apart in `watch_save_call`). Returns the last
/// request released, if any.
fn watch_drain(list: &mut longcall::watch::WatchList) -> usize {
    use longcall::watch::WatchOutput;
    let mut n = 0;
    while let Some(out) = list.poll_output() {
        n += 1;
        if let WatchOutput::Persist { call } = out {
            if let Some((v, _)) = list.versions(call) {
                let _ = list.handle_persisted(call, v);
            }
        }
    }
    n
}

fn watch_task(id: String, interval_ms: u64) -> longcall::view::TaskView {
    longcall::view::TaskView {
        task_id: id,
        poll_interval_ms: Some(interval_ms),
        status_message: None,
        ..working_task()
    }
}

/// `n` MCP tasks watched by handle, each polled once and answered with a poll interval so long
/// that none wakes again during the bench, plus call `n` (the hot one) with a 1 s interval.
fn watch_list_of(n: u64) -> longcall::watch::WatchList {
    use longcall::poll::{Jitter, PollPolicy};
    use longcall::tracker::{Input, TrackerConfig};
    use longcall::watch::{CallId, WatchConfig, WatchList};
    let config = TrackerConfig {
        poll: PollPolicy {
            jitter: Jitter::None,
            ..PollPolicy::default()
        },
        ..TrackerConfig::default()
    };
    let mut list = WatchList::new(WatchConfig::default());
    for i in 0..=n {
        let _ = list.add_handle(
            0,
            CallId(i),
            longcall::Model::Task2026,
            &format!("task_{i:012}"),
            config.clone(),
        );
        let interval = if i == n { 1_000 } else { u64::MAX / 4 };
        let task = watch_task(format!("task_{i:012}"), interval);
        let _ = list.handle_input(0, CallId(i), Input::TaskPolled { task });
    }
    watch_drain(&mut list);
    list
}

/// One poll answer for one of `n` watched calls (a rotating one): the list finds the call,
/// feeds its tracker, re-files its wake in the ordered set, and the record version is confirmed
/// and the outputs drained. The `TaskView` is built outside the timed section.
#[divan::bench(args = [1_000, 100_000], sample_size = 1_000)]
fn watch_event(bencher: divan::Bencher, n: u64) {
    use longcall::tracker::Input;
    use longcall::watch::CallId;
    let mut list = watch_list_of(n);
    let mut k = 0u64;
    let mut now = 1_000u64;
    bencher
        .with_inputs(|| {
            k = (k + 7_919) % n;
            watch_task(format!("task_{k:012}"), u64::MAX / 4)
        })
        .bench_local_values(|task| {
            now += 1;
            let call = CallId(task.task_id[5..].parse().unwrap_or(0));
            let _ = list.handle_input(now, call, Input::TaskPolled { task });
            watch_drain(&mut list)
        });
}

/// One wake among `n` watched calls: the earliest wake is found (O(log n)), the due call's poll
/// is made and released behind its record, the answer fed, and the record confirmed again.
#[divan::bench(args = [1_000, 100_000], sample_size = 1_000)]
fn watch_wake(bencher: divan::Bencher, n: u64) {
    use longcall::tracker::Input;
    use longcall::watch::CallId;
    let mut list = watch_list_of(n);
    let hot = CallId(n);
    let id = format!("task_{n:012}");
    bencher
        .with_inputs(|| watch_task(id.clone(), 1_000))
        .bench_local_values(|task| {
            let at = list.poll_timeout().unwrap_or(0);
            list.handle_timeout(at);
            watch_drain(&mut list);
            let _ = list.handle_input(at + 5, hot, Input::TaskPolled { task });
            watch_drain(&mut list)
        });
}

/// Writing one call's record: the text a store keeps (serialization of the whole call).
#[divan::bench]
fn watch_save_call(bencher: divan::Bencher) {
    use longcall::watch::CallId;
    let list = watch_list_of(10);
    bencher.bench_local(|| {
        list.save_call(divan::black_box(CallId(3)))
            .map(|s| s.text.len())
    });
}

/// Resuming one call from its record after a restart.
#[divan::bench]
fn watch_resume_call(bencher: divan::Bencher) {
    use longcall::watch::{CallId, WatchConfig, WatchList};
    let list = watch_list_of(10);
    let text = list
        .save_call(CallId(3))
        .map(|s| s.text)
        .unwrap_or_default();
    bencher.bench_local(|| {
        let mut fresh = WatchList::new(WatchConfig::default());
        fresh.resume_call(5_000, divan::black_box(&text)).is_ok()
    });
}

/// The task lifecycle of `pkg/bench/bench.mjs` natively (created, three timeout + working poll
/// pairs, input_required, the answer, update acknowledged, completed), construction included:
/// the floor under the JavaScript rows, and which events cost most.
#[divan::bench(args = ["whole", "to_input_required", "to_answered", "to_update_acked"])]
fn tracker_task_lifecycle(bencher: divan::Bencher, upto: &str) {
    use longcall::tracker::{Input, Output, Tracker, TrackerConfig};
    use longcall::view::{InputRequest, ToolResult};
    let drain = |t: &mut Tracker| {
        let mut n = 0usize;
        loop {
            match t.poll_output() {
                Output::WakeAt { .. } | Output::Idle => return n,
                _ => n += 1,
            }
        }
    };
    let stop = match upto {
        "to_input_required" => 8,
        "to_answered" => 9,
        "to_update_acked" => 10,
        _ => 11,
    };
    bencher.bench_local(|| {
        let mut t = Tracker::new(longcall::Model::Task2026, TrackerConfig::default())
            .unwrap_or_else(|_| unreachable!("the default config is valid"));
        let mut task = working_task();
        let mut n = 0;
        let mut now = 0;
        let _ = t.handle_input(now, Input::TaskCreated { task: task.clone() });
        n += drain(&mut t);
        for _ in 0..3 {
            now += 2_000;
            t.handle_timeout(now);
            n += drain(&mut t);
            let _ = t.handle_input(now + 50, Input::TaskPolled { task: task.clone() });
            n += drain(&mut t);
        }
        if stop >= 8 {
            task.status = longcall::Status::InputRequired;
            task.input_requests = vec![InputRequest {
                key: "k".into(),
                request: serde_json::json!({ "q": 1 }).into(),
            }];
            let _ = t.handle_input(now + 100, Input::TaskPolled { task: task.clone() });
            n += drain(&mut t);
        }
        if stop >= 9 {
            let _ = t.handle_input(
                now + 200,
                Input::InputAnswered {
                    key: "k".into(),
                    response: serde_json::json!({ "ok": true }).into(),
                },
            );
            n += drain(&mut t);
        }
        if stop >= 10 {
            let _ = t.handle_input(now + 300, Input::UpdateAcked);
            n += drain(&mut t);
        }
        if stop >= 11 {
            task.status = longcall::Status::Completed;
            task.input_requests.clear();
            task.result = Some(ToolResult {
                is_error: false,
                value: serde_json::json!({ "ok": 1 }).into(),
            });
            let _ = t.handle_input(now + 4_000, Input::TaskPolled { task });
            n += drain(&mut t);
        }
        n
    });
}
