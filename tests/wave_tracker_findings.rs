//! Findings about `tracker` made while building the wave (reported to the lead; the tracker is
//! not the wave's to edit), kept as regression tests once decided.

use longcall::tracker::{Input, Output, Tracker, TrackerConfig};
use longcall::view::JobView;
use longcall::{Model, Status};

fn job(status: Status) -> JobView {
    JobView {
        id: "job_1".into(),
        status,
        result: None,
        error: None,
    }
}

/// After `Output::Stopped` ("watching ended without an outcome") a tracker still takes
/// observations and can emit `Settled`, so a host sees both and `record()` holds both `stopped`
/// and `outcome`. Expected (by the wave): a stopped tracker refuses or ignores further
/// observations, or the docs say that settling after a stop is allowed. Decided: it refuses
/// them with a typed error.
#[test]
fn a_stopped_tracker_does_not_settle_later() {
    let mut t = Tracker::new(Model::Job, TrackerConfig::default()).unwrap();
    t.handle_input(
        0,
        Input::JobCreated {
            job: job(Status::Queued),
        },
    )
    .unwrap();
    t.handle_input(1, Input::StopWatching).unwrap();
    assert!(t.drain().contains(&Output::Stopped {
        reason: longcall::tracker::StopReason::HostStopped
    }));
    let late = t.handle_input(
        2,
        Input::JobPolled {
            job: job(Status::Completed),
        },
    );
    assert_eq!(late.unwrap_err().code(), "invalid_input");
    let outs = t.drain();
    assert!(
        !outs.iter().any(|o| matches!(o, Output::Settled { .. })),
        "{outs:?}"
    );
}
