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
