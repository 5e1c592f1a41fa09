//! Memory per watched call: 100,000 calls in one watch list, counted by the `allocation-counter`
//! crate's allocator (heap bytes still held once the list is built, so map nodes, wake set,
//! trackers and handles all count). Run with `--nocapture` to see the figures.

use longcall::tracker::{Input, Output, Request, TrackerConfig};
use longcall::view::{JobView, TaskView};
use longcall::watch::{CallId, Intent, WatchConfig, WatchList, WatchOutput};
use longcall::{Model, Status};
use serde_json::json;

const CALLS: u64 = 100_000;

/// The budget: under 1 KB of memory per watched call in the core.
const BUDGET: u64 = 1024;

/// Confirms every record without writing it anywhere (the store is not what is measured), and
/// answers every poll with `processing` so each call is mid-watch, its next poll armed.
fn settle_round(list: &mut WatchList, now: u64) {
    let mut polled = Vec::new();
    while let Some(o) = list.poll_output() {
        match o {
            WatchOutput::Persist { call } => {
                let (v, _) = list.versions(call).unwrap();
                list.handle_persisted(call, v).unwrap();
            }
            WatchOutput::Call {
                call,
                output:
                    Output::Send {
                        request: Request::Get { handle },
                    },
            } => polled.push((call, handle)),
            _ => {}
        }
    }
    for (call, id) in polled {
        let job = JobView {
            id,
            status: Status::Processing,
            result: None,
            error: None,
        };
        list.handle_input(now, call, Input::JobPolled { job })
            .unwrap();
    }
    while let Some(o) = list.poll_output() {
        if let WatchOutput::Persist { call } = o {
            let (v, _) = list.versions(call).unwrap();
            list.handle_persisted(call, v).unwrap();
        }
    }
}

fn per_call(build: impl FnOnce() -> WatchList) -> (u64, u64, WatchList) {
    let mut kept = None;
    let info = allocation_counter::measure(|| kept = Some(build()));
    let list = kept.unwrap();
    let heap = u64::try_from(info.bytes_current).unwrap();
    let size = std::mem::size_of::<WatchList>() as u64;
    (
        (heap + size) / CALLS,
        info.count_current as u64 / CALLS,
        list,
    )
}

#[test]
fn a_watched_job_mid_poll_stays_under_a_kilobyte() {
    let (bytes, allocs, list) = per_call(|| {
        let mut list = WatchList::new(WatchConfig::default());
        for i in 0..CALLS {
            let id = format!("job_{i:012}");
            list.add_handle(0, CallId(i), Model::Job, &id, TrackerConfig::default())
                .unwrap();
        }
        settle_round(&mut list, 0);
        // One poll each, answered: every call holds its state after a real round trip.
        while let Some(now) = list.poll_timeout() {
            if now > 40_000 {
                break;
            }
            list.handle_timeout(now);
            settle_round(&mut list, now);
        }
        list
    });
    eprintln!(
        "watch list, job by handle, mid-poll: {bytes} bytes and {allocs} heap blocks per call"
    );
    assert_eq!(list.len() as u64, CALLS);
    assert!(list.poll_timeout().is_some());
    assert!(bytes < BUDGET, "{bytes} bytes per call");
}

#[test]
fn a_new_call_holds_its_intent_until_the_handle_is_known() {
    let (waiting, allocs, mut list) = per_call(|| {
        let mut list = WatchList::new(WatchConfig::default());
        for i in 0..CALLS {
            let intent = Intent {
                model: Model::Task2026,
                request: json!({"name": "render", "arguments": {"frame": i}}),
                idempotency_key: None,
            };
            list.add_new(CallId(i), intent, TrackerConfig::default())
                .unwrap();
        }
        settle_round(&mut list, 0);
        list
    });
    eprintln!(
        "watch list, new MCP call waiting for its create answer: {waiting} bytes and {allocs} heap blocks per call"
    );
    assert_eq!(list.len() as u64, CALLS);
    // The create answers come: the intents go, and a call costs what a watched handle costs.
    let info = allocation_counter::measure(|| {
        for i in 0..CALLS {
            let task = TaskView {
                task_id: format!("task_{i:012}"),
                status: Status::Working,
                status_message: None,
                created_at_ms: None,
                last_updated_at_ms: None,
                ttl_ms: longcall::view::Ttl::NotGiven,
                poll_interval_ms: Some(2_000),
                input_requests: vec![],
                result: None,
                error: None,
            };
            list.handle_input(10, CallId(i), Input::TaskCreated { task })
                .unwrap();
        }
        settle_round(&mut list, 10);
    });
    let created = (waiting as i64 + info.bytes_current / CALLS as i64) as u64;
    eprintln!("watch list, the same calls once created: {created} bytes per call");
    assert!(list.intent(CallId(0)).is_none());
    assert!(created < BUDGET, "{created} bytes per call");
}
