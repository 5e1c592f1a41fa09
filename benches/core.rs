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
