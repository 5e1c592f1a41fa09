//! The reference task server and a host's tracker over the simulated network of
//! `longcall-testkit`: each scenario says what the server does and what the host sees. The
//! server's own answers are checked rule by rule in `server_registry.rs`.

use longcall::cancel::ButtonState;
use longcall::outcome::Outcome;
use longcall::server::{CancelMode, RegistryConfig};
use longcall::tracker::{Input, Output, Request, TrackerConfig};
use longcall::{Model, Status};
use longcall_testkit::{Checked, Driver, TaskServer, HANDLE};
use serde_json::json;

fn net(model: Model, cancel: CancelMode) -> Driver<TaskServer> {
    let config = RegistryConfig {
        cancel,
        ..RegistryConfig::default()
    };
    let (srv, task) = TaskServer::new(model, config);
    let host = Checked::new(model, TrackerConfig::default()).unwrap();
    let mut net = Driver::new(host, srv);
    net.feed(Input::TaskCreated { task });
    net
}

/// Rules C-2, C-3: a 2026 cancel is acknowledged, the task reads working until the work settles,
/// and cancellation is not a promise: the work may finish first.
#[test]
fn cooperative_2026_cancel_is_acknowledged_and_the_work_may_still_finish() {
    let mut net = net(Model::Task2026, CancelMode::Cooperative);
    net.run_until(1_000);
    net.feed(Input::CancelPressed);
    net.drive_until_idle();
    assert!(
        net.srv.reg.cancel_requested(HANDLE),
        "the server heard the cancel"
    );
    assert_eq!(
        net.host.buttons().last(),
        Some(&ButtonState::AcknowledgedPending),
        "the host shows the cancel acknowledged, not done"
    );
    net.run_until(10_000);
    assert_eq!(net.host.settled(), None, "still working on the server");

    // The worker finishes before it honours the cancel.
    net.srv.now = net.now();
    net.srv.complete(HANDLE, false);
    net.run_until(60_000);
    assert_eq!(
        net.host.settled(),
        Some((Outcome::Succeeded, Some(Status::Completed)))
    );
    assert_eq!(net.host.buttons().last(), Some(&ButtonState::FinishedFirst));
}

/// An immediate-cancel server settles the task at once: the host's next poll sees it cancelled
/// (the conformance fixture `slow_compute` must end `cancelled`).
#[test]
fn immediate_2026_cancel_ends_cancelled() {
    let mut net = net(Model::Task2026, CancelMode::Immediate);
    net.feed(Input::CancelPressed);
    net.run_until(60_000);
    assert_eq!(net.srv.status(), Status::Cancelled);
    assert_eq!(
        net.host.settled(),
        Some((Outcome::Cancelled, Some(Status::Cancelled)))
    );
    assert_eq!(net.host.buttons().last(), Some(&ButtonState::Cancelled));
}

/// Rules C-5, C-6: a 2025 server moves the task to cancelled before it answers, and the answer
/// alone settles the host; no poll is needed.
#[test]
fn cancel_2025_settles_the_host_with_the_answer() {
    let mut net = net(Model::Task2025, CancelMode::Cooperative);
    net.feed(Input::CancelPressed);
    net.drive_until_idle();
    assert_eq!(net.srv.status(), Status::Cancelled);
    assert_eq!(
        net.host.settled(),
        Some((Outcome::Cancelled, Some(Status::Cancelled)))
    );
    // The work finishing later changes nothing on either side.
    net.srv.complete(HANDLE, false);
    net.run_until(60_000);
    assert_eq!(net.srv.status(), Status::Cancelled);
    assert_eq!(net.host.settled().map(|(o, _)| o), Some(Outcome::Cancelled));
}

/// Rules M-9, M-7: on 2025 the host fetches the payload with `tasks/result` once the task is
/// terminal, and the tool error in it decides the outcome.
#[test]
fn result_2025_is_fetched_after_the_terminal_status() {
    let mut net = net(Model::Task2025, CancelMode::Cooperative);
    net.run_until(3_000);
    assert!(!net
        .host
        .sent()
        .iter()
        .any(|r| matches!(r, Request::FetchResult { .. })));
    net.srv.now = net.now();
    net.srv.complete(HANDLE, true);
    net.run_until(60_000);
    assert_eq!(
        net.srv.status(),
        Status::Failed,
        "2025: isError fails the task"
    );
    assert!(net
        .host
        .sent()
        .iter()
        .any(|r| matches!(r, Request::FetchResult { .. })));
    assert_eq!(net.host.settled().map(|(o, _)| o), Some(Outcome::ToolError));
}

/// Rules M-3, I-1: a 2026 server asks for input; the host is asked once per key and its answer
/// reaches the server as a `tasks/update`.
#[test]
fn input_2026_is_asked_once_and_answered_with_an_update() {
    let mut net = net(Model::Task2026, CancelMode::Cooperative);
    net.srv
        .reg
        .request_input(
            0,
            HANDLE,
            "k",
            json!({"method": "elicitation/create", "params": {"message": "sure?"}}),
        )
        .unwrap();
    net.run_until(5_000);
    let asked: Vec<_> = net
        .host
        .log
        .iter()
        .filter(|o| matches!(o, Output::AskUser { .. }))
        .collect();
    assert_eq!(asked.len(), 1, "asked once, however often it polled");
    net.answer_user();
    net.drive_until_idle();
    assert!(net
        .host
        .sent()
        .iter()
        .any(|r| matches!(r, Request::Update { .. })));
    assert_eq!(net.srv.status(), Status::Working, "the answer was taken");
}
