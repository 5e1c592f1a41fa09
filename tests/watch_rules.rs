//! The watch list's crash-safe order (rules R-1 .. R-8 of `longcall::watch`), one scenario each.
//! A "store" here is a map of call id to the record text, written only on `Persist`; a "crash"
//! drops the list and resumes every call from the store.

use std::collections::BTreeMap;

use longcall::cancel::ButtonState;
use longcall::outcome::Outcome;
use longcall::poll::{Jitter, PollPolicy};
use longcall::tracker::{Input, Output, Request, StopReason, TrackerConfig};
use longcall::view::{InputRequest, JobView, TaskView};
use longcall::watch::{CallId, Intent, WatchConfig, WatchList, WatchOutput};
use longcall::{Model, Status};
use serde_json::json;

fn config() -> TrackerConfig {
    TrackerConfig {
        poll: PollPolicy {
            jitter: Jitter::None,
            min_interval_ms: 100,
            ..PollPolicy::default()
        },
        seed: 7,
        deadline_ms: None,
    }
}

fn job_intent(key: &str) -> Intent {
    Intent {
        model: Model::Job,
        request: json!({"prompt": "a red bicycle"}),
        idempotency_key: Some(key.into()),
    }
}

fn tool_intent() -> Intent {
    Intent {
        model: Model::Task2026,
        request: json!({"name": "render", "arguments": {"frames": 3}}),
        idempotency_key: None,
    }
}

fn job(id: &str, status: Status) -> JobView {
    JobView {
        id: id.into(),
        status,
        result: None,
        error: None,
    }
}

fn task(id: &str, status: Status) -> TaskView {
    TaskView {
        task_id: id.into(),
        status,
        status_message: None,
        created_at_ms: None,
        last_updated_at_ms: None,
        ttl_ms: longcall::view::Ttl::NotGiven,
        poll_interval_ms: None,
        input_requests: vec![],
        result: None,
        error: None,
    }
}

/// A store of records, written only when the list says so.
#[derive(Default)]
struct Store {
    records: BTreeMap<CallId, String>,
    writes: usize,
}

impl Store {
    /// Drains the list like a host: writes every record asked for, confirms it, and returns the
    /// other outputs in order.
    fn run(&mut self, list: &mut WatchList) -> Vec<WatchOutput> {
        let mut out = Vec::new();
        while let Some(o) = list.poll_output() {
            match o {
                WatchOutput::Persist { call } => {
                    let saved = list.save_call(call).unwrap();
                    self.records.insert(call, saved.text);
                    self.writes += 1;
                    list.handle_persisted(call, saved.version).unwrap();
                }
                WatchOutput::Removed { call } => {
                    self.records.remove(&call);
                }
                o => out.push(o),
            }
        }
        out
    }

    /// A host that restarted: a new list resumed from every record.
    fn restart(&self, now: u64) -> WatchList {
        let mut list = WatchList::new(WatchConfig::default());
        for text in self.records.values() {
            list.resume_call(now, text).unwrap();
        }
        list
    }
}

/// Drains without writing anything (the host crashed before the store write).
fn drain(list: &mut WatchList) -> Vec<WatchOutput> {
    std::iter::from_fn(|| list.poll_output()).collect()
}

fn sends(outs: &[WatchOutput]) -> Vec<&Request> {
    outs.iter()
        .filter_map(|o| match o {
            WatchOutput::Call {
                output: Output::Send { request },
                ..
            } => Some(request),
            _ => None,
        })
        .collect()
}

fn creates(outs: &[WatchOutput]) -> Vec<(&Intent, bool)> {
    outs.iter()
        .filter_map(|o| match o {
            WatchOutput::Create { intent, resend, .. } => Some((intent, *resend)),
            _ => None,
        })
        .collect()
}

fn settled(outs: &[WatchOutput]) -> Vec<Outcome> {
    outs.iter()
        .filter_map(|o| match o {
            WatchOutput::Call {
                output: Output::Settled { outcome, .. },
                ..
            } => Some(*outcome),
            _ => None,
        })
        .collect()
}

/// A job call created and answered `queued`, records written: the starting point of several
/// scenarios.
fn created_job(store: &mut Store, call: CallId) -> WatchList {
    let mut list = WatchList::new(WatchConfig::default());
    list.add_new(call, job_intent("render-7"), config())
        .unwrap();
    store.run(&mut list);
    list.handle_input(
        10,
        call,
        Input::JobCreated {
            job: job("job_1", Status::Queued),
        },
    )
    .unwrap();
    store.run(&mut list);
    list
}

// --- R-1 ------------------------------------------------------------------------------------

#[test]
fn r1_the_intent_is_stored_before_the_create_is_released() {
    let call = CallId(1);
    let mut list = WatchList::new(WatchConfig::default());
    list.add_new(call, job_intent("render-7"), config())
        .unwrap();
    // Only the record is asked for; the Create waits for it.
    assert_eq!(drain(&mut list), [WatchOutput::Persist { call }]);
    assert!(drain(&mut list).is_empty());
    let saved = list.save_call(call).unwrap();
    assert!(saved.text.contains("render-7"), "the key is in the record");
    list.handle_persisted(call, saved.version).unwrap();
    let outs = drain(&mut list);
    assert_eq!(creates(&outs), [(&job_intent("render-7"), false)]);
}

#[test]
fn r1_a_create_answer_before_the_create_was_released_is_refused() {
    let call = CallId(1);
    let mut list = WatchList::new(WatchConfig::default());
    list.add_new(call, job_intent("render-7"), config())
        .unwrap();
    let err = list
        .handle_input(
            5,
            call,
            Input::JobCreated {
                job: job("job_1", Status::Queued),
            },
        )
        .unwrap_err();
    assert_eq!(err.code(), "invalid_input");
    assert_eq!(list.tracker(call).unwrap().handle(), None);
}

#[test]
fn r1_intents_have_the_right_key_or_none() {
    let mut list = WatchList::new(WatchConfig::default());
    let no_key = Intent {
        idempotency_key: None,
        ..job_intent("x")
    };
    assert_eq!(
        list.add_new(CallId(1), no_key, config())
            .unwrap_err()
            .code(),
        "invalid_input"
    );
    let mcp_key = Intent {
        idempotency_key: Some("k".into()),
        ..tool_intent()
    };
    assert_eq!(
        list.add_new(CallId(2), mcp_key, config())
            .unwrap_err()
            .code(),
        "invalid_input"
    );
    assert!(list.is_empty());
    assert!(drain(&mut list).is_empty());
}

// --- R-2 ------------------------------------------------------------------------------------

#[test]
fn r2_the_handle_is_stored_before_anything_uses_it() {
    let call = CallId(3);
    let mut store = Store::default();
    let mut list = WatchList::new(WatchConfig::default());
    list.add_new(call, job_intent("render-7"), config())
        .unwrap();
    store.run(&mut list);
    list.handle_input(
        10,
        call,
        Input::JobCreated {
            job: job("job_1", Status::Queued),
        },
    )
    .unwrap();
    // The user presses cancel at once: the jobs_cancel waits for the record too.
    list.handle_input(11, call, Input::CancelPressed).unwrap();
    assert_eq!(drain(&mut list), [WatchOutput::Persist { call }]);
    // A crash now: the store has the intent but not the handle, and nothing was sent.
    let before = store.records.get(&call).cloned().unwrap();
    assert!(!before.contains("job_1"));
    // Written and confirmed: the handle is in the store, then the cancel goes out.
    let saved = list.save_call(call).unwrap();
    assert!(saved.text.contains("job_1"));
    list.handle_persisted(call, saved.version).unwrap();
    let outs = drain(&mut list);
    assert_eq!(
        sends(&outs),
        [&Request::Cancel {
            handle: "job_1".into(),
            idempotency_key: Some("job_1:cancel".into())
        }]
    );
}

#[test]
fn r2_a_persisted_handle_is_polled_only_after_its_record() {
    // R-2 and E-6: the first thing a watched handle does is a poll, held until the record
    // holding the handle is written; no status is assumed until the server answers.
    let call = CallId(4);
    let mut list = WatchList::new(WatchConfig::default());
    list.add_handle(0, call, Model::Task2026, "task_9", config())
        .unwrap();
    assert_eq!(drain(&mut list), [WatchOutput::Persist { call }]);
    assert_eq!(list.versions(call), Some((1, 0)));
    let tracker = list.tracker(call).unwrap();
    assert_eq!(tracker.status(), None);
    assert_eq!(tracker.button(), ButtonState::Unavailable);
    // The poll is in flight, so no timer: the answer (or its failure) comes first.
    assert_eq!(list.poll_timeout(), None);
    list.handle_persisted(call, 1).unwrap();
    assert_eq!(
        sends(&drain(&mut list)),
        [&Request::Get {
            handle: "task_9".into()
        }]
    );
}

#[test]
fn r2_a_poll_of_a_persisted_handle_lost_in_a_crash_is_made_again() {
    // R-6 holds for the first poll of a watched handle too: a record written with that poll in
    // flight resumes as a failed poll and polls again, instead of waiting for an answer that
    // died with the host.
    let call = CallId(19);
    let mut store = Store::default();
    let mut list = WatchList::new(WatchConfig::default());
    list.add_handle(0, call, Model::Job, "job_9", config())
        .unwrap();
    assert_eq!(sends(&store.run(&mut list)).len(), 1);
    let mut list = store.restart(1_000);
    store.run(&mut list);
    let wake = list.poll_timeout().expect("the lost poll is planned again");
    assert!(wake >= 1_000 + 100, "the floor counts from the restart");
    list.handle_timeout(wake);
    assert_eq!(
        sends(&store.run(&mut list)),
        [&Request::Get {
            handle: "job_9".into()
        }]
    );
}

// --- R-3 ------------------------------------------------------------------------------------

#[test]
fn r3_the_outcome_is_stored_before_it_is_reported_and_again_after_a_restart() {
    let call = CallId(5);
    let mut store = Store::default();
    let mut list = created_job(&mut store, call);
    list.handle_timeout(list.poll_timeout().unwrap());
    store.run(&mut list);
    list.handle_input(
        5_000,
        call,
        Input::JobPolled {
            job: job("job_1", Status::Completed),
        },
    )
    .unwrap();
    // Not reported before the record with the outcome is confirmed.
    assert_eq!(drain(&mut list), [WatchOutput::Persist { call }]);
    let saved = list.save_call(call).unwrap();
    assert!(saved.done);
    list.handle_persisted(call, saved.version).unwrap();
    assert_eq!(settled(&drain(&mut list)), [Outcome::Succeeded]);
    store.records.insert(call, saved.text);
    // The host crashed before it removed the call: the ending is reported again.
    let mut again = store.restart(9_000);
    assert_eq!(settled(&store.run(&mut again)), [Outcome::Succeeded]);
    assert_eq!(again.poll_timeout(), None, "a settled call never wakes");
    // Removed: the record goes.
    assert!(again.remove(call));
    assert!(store.run(&mut again).is_empty());
    assert!(store.records.is_empty());
}

// --- R-4 ------------------------------------------------------------------------------------

#[test]
fn r4_versions_are_confirmed_in_order_and_never_ahead() {
    let call = CallId(6);
    let mut list = WatchList::new(WatchConfig::default());
    list.add_new(call, job_intent("k"), config()).unwrap();
    let (version, persisted) = list.versions(call).unwrap();
    assert_eq!((version, persisted), (1, 0));
    assert_eq!(
        list.handle_persisted(call, 2).unwrap_err().code(),
        "invalid_input"
    );
    assert_eq!(
        list.handle_persisted(CallId(99), 1).unwrap_err().code(),
        "invalid_input"
    );
    list.handle_persisted(call, 1).unwrap();
    list.handle_persisted(call, 0).unwrap();
    assert_eq!(list.versions(call), Some((1, 1)));
}

#[test]
fn r4_one_persist_per_batch_of_changes() {
    let call = CallId(7);
    let mut store = Store::default();
    let mut list = created_job(&mut store, call);
    let writes = store.writes;
    list.handle_timeout(list.poll_timeout().unwrap());
    list.handle_input(
        2_000,
        call,
        Input::JobPolled {
            job: job("job_1", Status::Processing),
        },
    )
    .unwrap();
    // Two changes before the host drained: one record write covers both.
    let outs = store.run(&mut list);
    assert_eq!(store.writes, writes + 1);
    assert_eq!(sends(&outs).len(), 1);
}

#[test]
fn r4_a_list_without_a_store_releases_at_once() {
    let call = CallId(8);
    let mut list = WatchList::new(WatchConfig {
        durable: false,
        ..WatchConfig::default()
    });
    list.add_new(call, job_intent("k"), config()).unwrap();
    let outs = drain(&mut list);
    assert_eq!(creates(&outs).len(), 1);
    assert!(!outs
        .iter()
        .any(|o| matches!(o, WatchOutput::Persist { .. })));
}

// --- R-5 ------------------------------------------------------------------------------------

#[test]
fn r5_a_job_intent_without_a_handle_is_sent_again_with_the_same_key() {
    let call = CallId(9);
    let mut store = Store::default();
    let mut list = WatchList::new(WatchConfig::default());
    list.add_new(call, job_intent("render-7"), config())
        .unwrap();
    let outs = store.run(&mut list);
    assert_eq!(creates(&outs).len(), 1);
    // The submit left; the host died before the answer.
    drop(list);
    let mut list = store.restart(1_000);
    let outs = store.run(&mut list);
    assert_eq!(creates(&outs), [(&job_intent("render-7"), true)]);
    // The answer to the re-send is taken.
    list.handle_input(
        1_100,
        call,
        Input::JobCreated {
            job: job("job_1", Status::Queued),
        },
    )
    .unwrap();
    store.run(&mut list);
    assert_eq!(list.tracker(call).unwrap().handle(), Some("job_1"));
}

#[test]
fn r5_job_resends_are_bounded_then_handed_to_the_host() {
    let call = CallId(10);
    let mut store = Store::default();
    let mut list = WatchList::new(WatchConfig {
        max_create_resends: 2,
        ..WatchConfig::default()
    });
    list.add_new(call, job_intent("k"), config()).unwrap();
    let mut all = store.run(&mut list);
    let policy = config().poll;
    // Each re-send waits the poll policy's retry schedule (the endpoint's), never at once.
    let mut now = 0;
    for tries in 1..=2 {
        list.handle_input(now, call, Input::CreateUnanswered)
            .unwrap();
        assert!(
            creates(&store.run(&mut list)).is_empty(),
            "not re-sent at once"
        );
        let at = list.poll_timeout().unwrap();
        assert_eq!(at - now, policy.retry_delay_ms(tries));
        list.handle_timeout(at - 1);
        assert!(
            creates(&store.run(&mut list)).is_empty(),
            "not before its time"
        );
        list.handle_timeout(at);
        now = at;
        all.extend(store.run(&mut list));
    }
    list.handle_input(now, call, Input::CreateUnanswered)
        .unwrap();
    all.extend(store.run(&mut list));
    let flags: Vec<bool> = creates(&all).iter().map(|c| c.1).collect();
    assert_eq!(flags, [false, true, true]);
    assert!(all.iter().any(|o| matches!(
        o,
        WatchOutput::CreateUnanswered { intent, .. } if intent.idempotency_key.as_deref() == Some("k")
    )));
    assert!(list.tracker(call).unwrap().is_done());
}

#[test]
fn r5_a_resend_waiting_at_a_restart_goes_at_once() {
    let call = CallId(13);
    let mut store = Store::default();
    let mut list = WatchList::new(WatchConfig::default());
    list.add_new(call, job_intent("k"), config()).unwrap();
    store.run(&mut list);
    list.handle_input(10, call, Input::CreateUnanswered)
        .unwrap();
    store.run(&mut list);
    assert!(list.poll_timeout().is_some_and(|at| at > 10));
    drop(list);
    // The record says a re-send waits; after the restart it goes at once, counted once.
    let mut list = store.restart(20);
    let outs = store.run(&mut list);
    assert_eq!(
        creates(&outs).iter().map(|c| c.1).collect::<Vec<_>>(),
        [true]
    );
    let text = list.save_call(call).unwrap().text;
    assert!(text.contains("\"resends\":1"), "{text}");
}

#[test]
fn r5_an_mcp_intent_without_a_handle_is_never_sent_again() {
    let call = CallId(11);
    let mut store = Store::default();
    let mut list = WatchList::new(WatchConfig::default());
    list.add_new(call, tool_intent(), config()).unwrap();
    assert_eq!(creates(&store.run(&mut list)).len(), 1);
    drop(list);
    let mut list = store.restart(1_000);
    let outs = store.run(&mut list);
    assert!(creates(&outs).is_empty(), "tools/call is never re-sent");
    assert_eq!(
        outs,
        [WatchOutput::CreateUnanswered {
            call,
            intent: tool_intent()
        }]
    );
    assert_eq!(
        list.tracker(call).unwrap().record().stopped,
        Some(StopReason::CreateUnanswered)
    );
    // And after another restart it is reported again, still without a Create.
    let mut list = store.restart(2_000);
    let outs = store.run(&mut list);
    assert!(creates(&outs).is_empty());
    assert_eq!(outs.len(), 1);
}

#[test]
fn r5_an_unanswered_mcp_create_while_running_is_typed() {
    let call = CallId(12);
    let mut store = Store::default();
    let mut list = WatchList::new(WatchConfig::default());
    list.add_new(call, tool_intent(), config()).unwrap();
    store.run(&mut list);
    list.handle_input(30_000, call, Input::CreateUnanswered)
        .unwrap();
    let outs = store.run(&mut list);
    assert_eq!(
        outs,
        [WatchOutput::CreateUnanswered {
            call,
            intent: tool_intent()
        }]
    );
}

#[test]
fn r5_a_found_task_is_adopted_in_the_same_record() {
    let call = CallId(16);
    let mut store = Store::default();
    let mut list = WatchList::new(WatchConfig::default());
    list.add_new(call, tool_intent(), config()).unwrap();
    store.run(&mut list);
    let mut list = store.restart(1_000);
    assert!(matches!(
        store.run(&mut list)[..],
        [WatchOutput::CreateUnanswered { .. }]
    ));
    // A call that did not stop that way cannot adopt anything.
    list.add_handle(0, CallId(17), Model::Job, "job_2", config())
        .unwrap();
    store.run(&mut list);
    assert_eq!(
        list.adopt_handle(1_000, CallId(17), "job_3", config())
            .unwrap_err()
            .code(),
        "invalid_input"
    );
    assert!(list.remove(CallId(17)));
    store.run(&mut list);
    // The host found task_1: one record write takes the call from unanswered to watched.
    let writes = store.writes;
    list.adopt_handle(1_000, call, "task_1", config()).unwrap();
    store.run(&mut list);
    assert_eq!(store.writes, writes + 1);
    assert!(store.records[&call].contains("task_1"));
    let mut list = store.restart(2_000);
    assert!(store.run(&mut list).is_empty(), "nothing to report again");
    list.handle_timeout(list.poll_timeout().unwrap());
    assert_eq!(
        sends(&store.run(&mut list)),
        [&Request::Get {
            handle: "task_1".into()
        }]
    );
}

// --- R-6 ------------------------------------------------------------------------------------

#[test]
fn r6_a_poll_in_flight_at_a_crash_counts_from_the_restart() {
    let call = CallId(13);
    let mut store = Store::default();
    let mut list = WatchList::new(WatchConfig::default());
    list.add_new(call, tool_intent(), config()).unwrap();
    store.run(&mut list);
    let mut created = task("task_1", Status::Working);
    created.poll_interval_ms = Some(5_000);
    list.handle_input(0, call, Input::TaskCreated { task: created })
        .unwrap();
    store.run(&mut list);
    let at = list.poll_timeout().unwrap();
    assert!(at >= 5_000);
    list.handle_timeout(at);
    assert_eq!(sends(&store.run(&mut list)).len(), 1);
    // The poll left and the host died. Resumed at 6,000: the next poll keeps the server's floor.
    let mut list = store.restart(6_000);
    let outs = store.run(&mut list);
    assert!(sends(&outs).is_empty());
    assert!(list.poll_timeout().unwrap() >= 11_000);
    list.handle_timeout(list.poll_timeout().unwrap());
    assert_eq!(
        sends(&store.run(&mut list)),
        [&Request::Get {
            handle: "task_1".into()
        }]
    );
}

#[test]
fn r6_a_cancel_pressed_before_a_crash_is_pressed_again() {
    let call = CallId(14);
    let mut store = Store::default();
    let mut list = created_job(&mut store, call);
    list.handle_input(20, call, Input::CancelPressed).unwrap();
    let outs = store.run(&mut list);
    let cancel = Request::Cancel {
        handle: "job_1".into(),
        idempotency_key: Some("job_1:cancel".into()),
    };
    assert_eq!(sends(&outs), [&cancel]);
    let mut list = store.restart(1_000);
    let outs = store.run(&mut list);
    assert_eq!(sends(&outs), [&cancel], "same request, same cancel key");
    assert_eq!(
        list.tracker(call).unwrap().button(),
        ButtonState::Requesting
    );
}

// --- R-7 ------------------------------------------------------------------------------------

#[test]
fn r7_a_prompt_is_asked_once_across_a_restart() {
    let call = CallId(15);
    let mut store = Store::default();
    let mut list = WatchList::new(WatchConfig::default());
    list.add_handle(0, call, Model::Task2026, "task_1", config())
        .unwrap();
    store.run(&mut list); // the first poll (E-6)
    let mut asking = task("task_1", Status::InputRequired);
    asking.input_requests = vec![InputRequest {
        key: "confirm".into(),
        request: json!({"method": "elicitation/create"}).into(),
    }];
    list.handle_input(
        2_000,
        call,
        Input::TaskPolled {
            task: asking.clone(),
        },
    )
    .unwrap();
    let asks = |outs: &[WatchOutput]| {
        outs.iter()
            .filter(|o| {
                matches!(
                    o,
                    WatchOutput::Call {
                        output: Output::AskUser { .. },
                        ..
                    }
                )
            })
            .count()
    };
    assert_eq!(asks(&store.run(&mut list)), 1);
    let mut list = store.restart(3_000);
    assert_eq!(asks(&store.run(&mut list)), 0, "not asked again");
    assert_eq!(list.open_prompts(call).len(), 1);
    assert_eq!(list.open_prompts(call)[0].0, "confirm");
    // The same key seen again on the next poll is not a new question either.
    list.handle_timeout(list.poll_timeout().unwrap());
    store.run(&mut list);
    list.handle_input(5_000, call, Input::TaskPolled { task: asking })
        .unwrap();
    assert_eq!(asks(&store.run(&mut list)), 0);
    // The answer goes out once the record holding it is written.
    list.handle_input(
        5_100,
        call,
        Input::InputAnswered {
            key: "confirm".into(),
            response: json!({"action": "accept"}).into(),
        },
    )
    .unwrap();
    let outs = store.run(&mut list);
    assert!(matches!(sends(&outs)[..], [Request::Update { .. }]));
    assert!(list.open_prompts(call).is_empty());
}

// --- R-8 ------------------------------------------------------------------------------------

#[test]
fn r8_one_next_wake_over_all_calls_and_only_due_calls_run() {
    let mut store = Store::default();
    let mut list = WatchList::new(WatchConfig::default());
    for i in 0..50u64 {
        let policy = PollPolicy {
            jitter: Jitter::None,
            initial_ms: 1_000 + (i * 7_919) % 5_000,
            cap_ms: 60_000,
            ..PollPolicy::default()
        };
        let cfg = TrackerConfig {
            poll: policy,
            seed: i,
            deadline_ms: None,
        };
        list.add_handle(0, CallId(i), Model::Job, &format!("job_{i}"), cfg)
            .unwrap();
    }
    // Each handle's first poll goes at once (E-6); its answer arms the call's own schedule.
    assert_eq!(sends(&store.run(&mut list)).len(), 50);
    assert_eq!(list.poll_timeout(), None);
    for i in 0..50u64 {
        let job = job(&format!("job_{i}"), Status::Queued);
        list.handle_input(0, CallId(i), Input::JobPolled { job })
            .unwrap();
    }
    store.run(&mut list);
    let wakes: Vec<(u64, CallId)> = (0..50u64)
        .map(|i| {
            let rec = list.tracker(CallId(i)).unwrap().record();
            (rec.next_poll_at.unwrap(), CallId(i))
        })
        .collect();
    let first = wakes.iter().map(|w| w.0).min().unwrap();
    assert_eq!(list.poll_timeout(), Some(first));
    // Early: nothing runs.
    list.handle_timeout(first - 1);
    assert!(store.run(&mut list).is_empty());
    let due: Vec<CallId> = wakes
        .iter()
        .filter(|w| w.0 <= first + 500)
        .map(|w| w.1)
        .collect();
    list.handle_timeout(first + 500);
    let outs = store.run(&mut list);
    let polled: Vec<CallId> = outs
        .iter()
        .filter(|o| {
            matches!(
                o,
                WatchOutput::Call {
                    output: Output::Send { .. },
                    ..
                }
            )
        })
        .map(WatchOutput::call)
        .collect();
    let mut want = due.clone();
    want.sort();
    let mut got = polled.clone();
    got.sort();
    assert_eq!(got, want);
    let rest = wakes
        .iter()
        .filter(|w| w.0 > first + 500)
        .map(|w| w.0)
        .min();
    assert_eq!(list.poll_timeout(), rest);
}

// --- R-9 ------------------------------------------------------------------------------------

#[test]
fn r9_a_call_given_up_keeps_its_record_for_another_host() {
    let call = CallId(18);
    let mut store = Store::default();
    let mut list = created_job(&mut store, call);
    list.handle_input(20, call, Input::CancelPressed).unwrap();
    // The lease is lost before the press was written: the call leaves this host silently.
    assert!(list.unload(call));
    assert!(drain(&mut list).is_empty(), "no Removed, no Send");
    assert_eq!(list.poll_timeout(), None);
    assert!(store.records.contains_key(&call));
    // Another host resumes the record as it was written: watching, no cancel pressed.
    let mut other = store.restart(1_000);
    store.run(&mut other);
    assert_eq!(
        other.tracker(call).unwrap().button(),
        ButtonState::Available
    );
    assert!(other.poll_timeout().is_some());
    assert!(!list.unload(call));
}

// --- R-10, R-11 ------------------------------------------------------------------------------

#[test]
/// the margin is a quarter of the lease.
fn r10_a_holder_stops_acting_a_quarter_of_its_lease_before_it_ends() {
    assert_eq!(longcall::watch::lease_margin_ms(1_000), 250);
    assert_eq!(longcall::watch::lease_margin_ms(0), 0);
    assert_eq!(longcall::watch::lease_margin_ms(u64::MAX), u64::MAX / 4);
}

#[test]
/// a resume counts from no earlier than the record's last act.
fn r11_a_resume_on_a_clock_behind_the_last_holder_keeps_the_floor() {
    let call = CallId(19);
    let mut store = Store::default();
    let mut list = WatchList::new(WatchConfig::default());
    list.add_new(call, tool_intent(), config()).unwrap();
    store.run(&mut list);
    let mut created = task("task_1", Status::Working);
    created.poll_interval_ms = Some(5_000);
    list.handle_input(0, call, Input::TaskCreated { task: created })
        .unwrap();
    store.run(&mut list);
    // The last holder polls at 9,000 by its clock and its lease passes on.
    list.handle_timeout(9_000);
    assert_eq!(sends(&store.run(&mut list)).len(), 1);
    // The next holder's clock says 6,000: the poll counts as lost at 9,000, not earlier.
    let mut list = store.restart(6_000);
    store.run(&mut list);
    assert!(
        list.poll_timeout().unwrap() >= 14_000,
        "{:?}",
        list.poll_timeout()
    );
}

#[test]
fn a_call_id_is_used_once_and_unknown_calls_are_typed_errors() {
    let mut list = WatchList::new(WatchConfig::default());
    list.add_handle(0, CallId(1), Model::Job, "job_1", config())
        .unwrap();
    let err = list
        .add_handle(0, CallId(1), Model::Job, "job_2", config())
        .unwrap_err();
    assert_eq!(err.code(), "duplicate");
    let err = list
        .handle_input(0, CallId(2), Input::CancelPressed)
        .unwrap_err();
    assert_eq!(err.code(), "invalid_input");
    assert!(!list.remove(CallId(2)));
    assert_eq!(
        list.add_handle(0, CallId(3), Model::Job, "", config())
            .unwrap_err()
            .code(),
        "invalid_input"
    );
    assert_eq!(list.len(), 1);
}
