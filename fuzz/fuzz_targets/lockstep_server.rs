//! Tracker against the reference task server (`longcall::server::TaskRegistry`, both revisions,
//! cooperative or immediate cancel) over a network with arbitrary delays, drops and reordering.
//! Every `Checked` invariant holds throughout; at the end the network heals and, while the handle
//! is alive, the tracker must settle with exactly the server's terminal status.
#![no_main]
use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use longcall::outcome::Outcome;
use longcall::poll::PollPolicy;
use longcall::server::{CancelMode, RegistryConfig};
use longcall::tracker::{Input, Output, TrackerConfig};
use longcall::view::{RpcError, ToolResult};
use longcall::{Model, Status};
use longcall_fuzz::{Checked, Driver, TaskServer, HANDLE};
use serde_json::json;

#[derive(Arbitrary, Debug)]
enum Ev {
    Deliver(u8),
    Answer(u8),
    DropRequest(u8),
    DropAnswer(u8),
    Advance(u16),
    Wake,
    ServerStep(u8),
    Press,
    AnswerUser,
    Notify,
}

#[derive(Arbitrary, Debug)]
struct Case {
    model: bool,
    immediate: bool,
    seed: u64,
    interval: Option<u16>,
    events: Vec<Ev>,
}

/// One worker-side write.
fn server_step(srv: &mut TaskServer, next_key: &mut u32, pick: u8) {
    let now = srv.now;
    let reg = &mut srv.reg;
    match pick % 5 {
        0 => {
            let _ = reg.complete(
                now,
                HANDLE,
                ToolResult {
                    is_error: pick & 8 != 0,
                    value: json!(1).into(),
                },
            );
        }
        1 => {
            let _ = reg.fail(
                now,
                HANDLE,
                RpcError {
                    code: -32603,
                    message: "boom".into(),
                    data: None,
                },
            );
        }
        2 => {
            if reg.cancel_requested(HANDLE) || pick & 8 != 0 {
                let _ = reg.settle_cancelled(now, HANDLE);
            }
        }
        _ => {
            *next_key += 1;
            let key = format!("key{}", next_key);
            let _ = reg.request_input(now, HANDLE, &key, json!({"q": 1}));
        }
    }
}

fuzz_target!(|c: Case| {
    let model = if c.model {
        Model::Task2026
    } else {
        Model::Task2025
    };
    let config = TrackerConfig {
        poll: PollPolicy::default(),
        seed: c.seed,
        deadline_ms: None,
    };
    let Some(d) = Checked::new(model, config) else {
        return;
    };
    let reg_config = RegistryConfig {
        ttl_ms: None,
        retention_ms: None,
        poll_interval_ms: c.interval.map(u64::from),
        cancel: if c.immediate {
            CancelMode::Immediate
        } else {
            CancelMode::Cooperative
        },
        ..RegistryConfig::default()
    };
    let (srv, task) = TaskServer::new(model, reg_config);
    let mut next_key = 0;
    let mut w = Driver::new(d, srv);
    w.feed(Input::TaskCreated { task });
    for ev in c.events.iter().take(300) {
        w.srv.now = w.host.shadow.now;
        match *ev {
            Ev::Deliver(i) => {
                w.deliver(usize::from(i));
            }
            Ev::Answer(i) => {
                w.answer(usize::from(i));
            }
            Ev::DropRequest(i) => w.drop_request(usize::from(i)),
            Ev::DropAnswer(i) => w.drop_answer(usize::from(i)),
            Ev::Advance(dt) => w.advance(u64::from(dt)),
            Ev::Wake => w.timeout(),
            Ev::ServerStep(p) => server_step(&mut w.srv, &mut next_key, p),
            Ev::Press => w.feed(Input::CancelPressed),
            Ev::AnswerUser => w.answer_user(),
            Ev::Notify => {
                let task = w.srv.view();
                w.feed(Input::TaskNotified { task });
            }
        }
    }
    // The network heals and the server finishes: the tracker must settle with its status.
    for round in 0..2000u32 {
        if w.host.shadow.done {
            break;
        }
        while w.deliver(0) {}
        while w.answer(0) {}
        w.answer_user();
        w.srv.now = w.host.shadow.now;
        if round > 20 {
            server_step(&mut w.srv, &mut next_key, (round % 3) as u8);
        }
        if w.requests.is_empty() && w.answers.is_empty() {
            w.timeout();
        }
    }
    let settled = w.host.log.iter().find_map(|o| match o {
        Output::Settled {
            outcome, status, ..
        } => Some((*outcome, *status)),
        _ => None,
    });
    let stopped = w
        .host
        .log
        .iter()
        .any(|o| matches!(o, Output::Stopped { .. }));
    if stopped {
        return;
    }
    let Some((outcome, status)) = settled else {
        panic!(
            "never settled; server {:?}, tracker {:?}",
            w.srv.status(),
            w.host.tracker.record()
        );
    };
    assert_eq!(
        status,
        Some(w.srv.status()),
        "tracker settled {status:?}, server ended {:?}",
        w.srv.status()
    );
    assert_ne!(outcome, Outcome::Lost, "a live handle reported lost");
    assert_eq!(outcome == Outcome::Cancelled, w.srv.status().is_cancelled());
    let _ = Status::Completed;
});
