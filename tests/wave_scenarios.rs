//! A host's wave in front of the reference job server (`longcall-testkit`'s `WaveDriver`): each
//! scenario says what the server does and what the host sees. The wave's rules one by one are in
//! `wave_rules.rs`, the server's in `server_jobs.rs`.

use longcall::job_vocab::{WaitFor, MAX_WAIT_IDS};
use longcall::outcome::Outcome;
use longcall::server::JobBookConfig;
use longcall::tracker::{Output, StopReason};
use longcall::wave::{Released, WaveConfig, WaveInput, WaveOutput};
use longcall::Status;
use longcall_testkit::{JobServer, WaveDriver};
use serde_json::json;

fn driver(wait_for: WaitFor, config: JobBookConfig) -> WaveDriver {
    WaveDriver::new(
        WaveConfig {
            wait_for,
            seed: 7,
            ..WaveConfig::default()
        },
        JobServer::new(config),
    )
}

fn settled<'a>(outs: &[&'a Output]) -> Option<&'a Outcome> {
    outs.iter().find_map(|o| match o {
        Output::Settled { outcome, .. } => Some(outcome),
        _ => None,
    })
}

/// Rules B-3, B-5: an `any` wave is satisfied by the first job the worker finishes, and the host
/// sees that job settle.
#[test]
fn an_any_wave_is_satisfied_by_the_first_job_that_finishes() {
    let mut d = driver(WaitFor::Any, JobBookConfig::default());
    for id in ["a", "b", "c"] {
        d.submit(id, None);
    }
    d.run_until(2_000);
    assert_eq!(d.satisfied(), None, "nothing finished yet");

    d.srv.book.complete(d.now, "b", json!({"ok": true}));
    d.run_until(5_000);
    assert_eq!(d.satisfied(), Some(Some("b")));
    assert_eq!(settled(&d.job_outputs("b")), Some(&Outcome::Succeeded));
    assert_eq!(settled(&d.job_outputs("a")), None);
    let rounds = d.srv.waits;
    d.run_until(60_000);
    assert_eq!(d.srv.waits, rounds, "no round after the wave is satisfied");
}

/// Rules B-9, C-13: releasing a job that is still queued cancels it on the server with the job's
/// own idempotency key, and the host sees it settle cancelled.
#[test]
fn releasing_a_queued_job_cancels_it_on_the_server() {
    let mut d = driver(
        WaitFor::All,
        JobBookConfig {
            concurrency_per_workspace: 1,
            ..JobBookConfig::default()
        },
    );
    d.submit("first", None);
    d.submit("second", None);
    assert_eq!(d.srv.status("second"), Status::Queued);
    d.input(WaveInput::Release {
        id: "second".into(),
    });
    assert!(d.log.contains(&WaveOutput::Released {
        id: "second".into(),
        released: Released::CancelRequested
    }));
    d.run_until(2_000);
    assert_eq!(d.srv.status("second"), Status::Canceled);
    assert_eq!(settled(&d.job_outputs("second")), Some(&Outcome::Cancelled));
    assert_eq!(d.wave.needed_ids().collect::<Vec<_>>(), ["first"]);
}

/// Rule B-9: releasing a job whose generation started stops waiting for it and nothing more: it
/// runs (and bills) on the server, and the host is told it stopped watching, not that it was
/// cancelled.
#[test]
fn releasing_a_started_job_stops_waiting_and_the_server_keeps_running_it() {
    let mut d = driver(WaitFor::All, JobBookConfig::default());
    d.submit("busy", None);
    d.run_until(1_000);
    assert_eq!(d.srv.status("busy"), Status::Processing);
    d.input(WaveInput::Release { id: "busy".into() });
    assert!(d.log.contains(&WaveOutput::Released {
        id: "busy".into(),
        released: Released::StoppedWaiting
    }));
    d.run_until(10_000);
    assert_eq!(
        d.srv.status("busy"),
        Status::Processing,
        "no cancel was sent"
    );
    assert_eq!(settled(&d.job_outputs("busy")), None);
    assert!(d.job_outputs("busy").contains(&&Output::Stopped {
        reason: StopReason::HostStopped
    }));
    assert_eq!(
        d.satisfied(),
        Some(None),
        "an `all` wave of given-up jobs is done"
    );
}

/// Rules B-2, B-6, B-10: a wave of 45 jobs is waited in calls of at most 20 ids, and every job is
/// waited until it settles on the server.
#[test]
fn a_large_wave_is_waited_in_calls_of_at_most_twenty_ids() {
    let mut d = driver(
        WaitFor::All,
        JobBookConfig {
            concurrency_per_workspace: 45,
            queue_limit_per_workspace: 45,
            ..JobBookConfig::default()
        },
    );
    let ids: Vec<String> = (0..45).map(|i| format!("job_{i:02}")).collect();
    for id in &ids {
        d.submit(id, None);
    }
    d.run_until(1_000);
    assert_eq!(&d.srv.wait_sizes[..3], [20, 20, 5]);
    assert!(d.srv.wait_sizes.iter().all(|&n| n <= MAX_WAIT_IDS));

    for id in &ids {
        d.srv.book.complete(d.now, id, json!(1));
    }
    d.run_until(10_000);
    assert_eq!(d.satisfied(), Some(None));
    for id in &ids {
        assert_eq!(
            settled(&d.job_outputs(id)),
            Some(&Outcome::Succeeded),
            "{id}"
        );
    }
}
