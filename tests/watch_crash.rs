//! A host that crashes at any point loses nothing (host only: proptest). The world: the core's
//! reference job book and 2026 task registry as the servers (answered through the testkit), a
//! store of records written only on `Persist`, and a host that drains its watch list one output
//! at a time and may die after any of them (with or without feeding back the answer of the
//! request it just sent). After the scripted run, a last run without crashes lets everything
//! finish; then, from the servers' own state and what the host reported:
//!
//! * no MCP `tools/call` was ever sent twice, and every job submit carried its call's key (so the
//!   book made at most one job per call);
//! * every call that made a task or a job reported one outcome, the same at every report, and it
//!   matches the server's final status; a call with no task behind it never sent `tools/call`;
//! * a cancel press whose record was written while the task was still running reached the server.

use std::collections::{BTreeMap, BTreeSet};

use longcall::outcome::Outcome;
use longcall::ownership::Owner;
use longcall::poll::{Jitter, PollPolicy};
use longcall::server::{CancelMode, JobBookConfig, RegistryConfig, TaskRegistry};
use longcall::tracker::{Input, Output, Request, TrackerConfig};
use longcall::view::{RpcError, ToolResult};
use longcall::watch::{CallId, Intent, WatchConfig, WatchList, WatchOutput};
use longcall::{Model, Status};
use longcall_testkit::{task_answer, JobServer};
use proptest::prelude::*;
use serde_json::json;

const CALLS: u64 = 6;
const PRINCIPAL: &str = "alice";

fn owner() -> Owner {
    Owner {
        workspace: "w".into(),
        member: "m".into(),
    }
}

fn is_job(call: CallId) -> bool {
    call.0 % 2 == 0
}

fn key(call: CallId) -> String {
    format!("key-{call}")
}

fn task_id(call: CallId) -> String {
    format!("task-{call}")
}

fn config(call: CallId) -> TrackerConfig {
    TrackerConfig {
        poll: PollPolicy {
            jitter: Jitter::Full,
            min_interval_ms: 100,
            cap_ms: 5_000,
            ..PollPolicy::default()
        },
        seed: call.0,
        deadline_ms: None,
    }
}

#[derive(Clone, Debug)]
enum Op {
    /// Time passes by this much; the host wakes and runs.
    Tick(u16),
    /// The user presses cancel on a call.
    Press(u8),
    /// The servers' workers move: start queued jobs, finish one job and one task.
    Work(u8),
    /// The host runs, and dies after this many outputs (`answered`: after feeding back the
    /// answer of a request it sent at that point, or before).
    Crash { after: u8, answered: bool },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (1..3_000u16).prop_map(Op::Tick),
        1 => (0..CALLS as u8).prop_map(Op::Press),
        2 => (0..CALLS as u8).prop_map(Op::Work),
        2 => (0..12u8, any::<bool>()).prop_map(|(after, answered)| Op::Crash { after, answered }),
    ]
}

struct World {
    now: u64,
    jobs: JobServer,
    registry: TaskRegistry,
    store: BTreeMap<CallId, String>,
    list: WatchList,
    tools_calls: BTreeMap<CallId, u32>,
    submits: u32,
    /// Creates sent per call (tools/call or job submits, re-sends included).
    creates_sent: BTreeMap<CallId, u32>,
    cancels_received: BTreeSet<CallId>,
    reported: BTreeMap<CallId, Outcome>,
    /// Calls whose create is unanswered and nothing exists on the server.
    never_created: BTreeSet<CallId>,
    /// Calls pressed, with the record version that holds the press.
    pressed: BTreeMap<CallId, u64>,
    /// Presses written while the task or job could still be cancelled.
    durable_presses: BTreeSet<CallId>,
}

impl World {
    fn new() -> World {
        let mut list = WatchList::new(WatchConfig::default());
        for i in 0..CALLS {
            let call = CallId(i);
            let intent = if is_job(call) {
                Intent {
                    model: Model::Job,
                    request: json!({"prompt": i}),
                    idempotency_key: Some(key(call)),
                }
            } else {
                Intent {
                    model: Model::Task2026,
                    request: json!({"name": "render", "arguments": {"n": i}}),
                    idempotency_key: None,
                }
            };
            list.add_new(call, intent, config(call)).unwrap();
        }
        World {
            now: 0,
            jobs: JobServer::new(JobBookConfig {
                concurrency_per_workspace: 2,
                queue_limit_per_workspace: 100,
                cost_per_job: 0,
            }),
            registry: TaskRegistry::new(
                Model::Task2026,
                RegistryConfig {
                    ttl_ms: None,
                    retention_ms: None,
                    poll_interval_ms: Some(500),
                    cancel: CancelMode::Cooperative,
                    ..RegistryConfig::default()
                },
            )
            .unwrap(),
            store: BTreeMap::new(),
            list,
            tools_calls: BTreeMap::new(),
            submits: 0,
            creates_sent: BTreeMap::new(),
            cancels_received: BTreeSet::new(),
            reported: BTreeMap::new(),
            never_created: BTreeSet::new(),
            pressed: BTreeMap::new(),
            durable_presses: BTreeSet::new(),
        }
    }

    fn server_status(&self, call: CallId) -> Option<Status> {
        if is_job(call) {
            self.jobs
                .book
                .list(&owner())
                .into_iter()
                .find(|j| j.id.starts_with(&format!("job-{call}-")))
                .map(|j| j.status)
        } else {
            self.registry.peek(&task_id(call)).map(|t| t.status)
        }
    }

    fn crash(&mut self) {
        let mut list = WatchList::new(WatchConfig::default());
        for text in self.store.values() {
            list.resume_call(self.now, text).unwrap();
        }
        self.list = list;
    }

    /// Sends what an output asks and returns the answer to feed back, if any.
    fn serve(&mut self, out: &WatchOutput) -> Option<(CallId, Input)> {
        let now = self.now;
        match out {
            WatchOutput::Create { call, intent, .. } => {
                let call = *call;
                if is_job(call) {
                    assert_eq!(
                        intent.idempotency_key,
                        Some(key(call)),
                        "a submit keeps its key"
                    );
                    self.submits += 1;
                    *self.creates_sent.entry(call).or_default() += 1;
                    let job_id = format!("job-{call}-{}", self.submits);
                    let answer = self.jobs.book.submit(
                        now,
                        &owner(),
                        &job_id,
                        intent.idempotency_key.as_deref(),
                    );
                    let job = answer.expect("the book admits every submit here");
                    Some((call, Input::JobCreated { job }))
                } else {
                    *self.tools_calls.entry(call).or_default() += 1;
                    *self.creates_sent.entry(call).or_default() += 1;
                    let task = self
                        .registry
                        .create(now, PRINCIPAL, &task_id(call), None)
                        .expect("tools/call sent once per call");
                    Some((call, Input::TaskCreated { task }))
                }
            }
            WatchOutput::Call {
                call,
                output: Output::Send { request },
            } => {
                let call = *call;
                if matches!(request, Request::Cancel { .. }) {
                    self.cancels_received.insert(call);
                }
                let input = if is_job(call) {
                    self.jobs.answer(now, request)
                } else {
                    task_answer(&mut self.registry, now, PRINCIPAL, &task_id(call), request)
                };
                Some((
                    call,
                    input.expect("only polls and cancels are sent in this world"),
                ))
            }
            _ => None,
        }
    }

    /// The host drains its list; with `crash_after`, it dies after that many outputs.
    fn run(&mut self, crash_after: Option<(u8, bool)>) {
        let mut budget = crash_after.map(|(n, _)| n);
        loop {
            let Some(out) = self.list.poll_output() else {
                return;
            };
            let dies_now = budget == Some(0);
            if let Some(b) = budget.as_mut() {
                *b = b.saturating_sub(1);
            }
            let answered = crash_after.is_some_and(|(_, a)| a);
            match &out {
                WatchOutput::Persist { call } => {
                    if dies_now {
                        return self.crash(); // died before the write
                    }
                    let saved = self.list.save_call(*call).unwrap();
                    self.store.insert(*call, saved.text);
                    self.list.handle_persisted(*call, saved.version).unwrap();
                    if self.pressed.get(call).is_some_and(|v| *v <= saved.version) {
                        self.pressed.remove(call);
                        if self.server_status(*call).is_some_and(|s| !s.is_terminal()) {
                            self.durable_presses.insert(*call);
                        }
                    }
                }
                WatchOutput::Removed { call } => {
                    self.store.remove(call);
                }
                WatchOutput::Call {
                    call,
                    output: Output::Settled { outcome, .. },
                } => {
                    if dies_now {
                        return self.crash();
                    }
                    let first = *self.reported.entry(*call).or_insert(*outcome);
                    assert_eq!(first, *outcome, "call {call} reported two outcomes");
                    self.list.remove(*call);
                }
                WatchOutput::CreateUnanswered { call, intent } => {
                    if dies_now {
                        return self.crash();
                    }
                    // Reconcile by looking the call up: the host never sends the create again.
                    assert_eq!(intent.idempotency_key.is_some(), is_job(*call));
                    let call = *call;
                    let found = if is_job(call) {
                        self.jobs
                            .book
                            .list(&owner())
                            .into_iter()
                            .find(|j| j.id.starts_with(&format!("job-{call}-")))
                            .map(|j| j.id)
                    } else {
                        self.registry.peek(&task_id(call)).map(|t| t.task_id)
                    };
                    match found {
                        Some(handle) => {
                            self.list
                                .adopt_handle(self.now, call, &handle, config(call))
                                .unwrap();
                        }
                        None => {
                            self.never_created.insert(call);
                            self.list.remove(call);
                        }
                    }
                }
                WatchOutput::Create { .. }
                | WatchOutput::Call {
                    output: Output::Send { .. },
                    ..
                } => {
                    let answer = self.serve(&out);
                    if dies_now && !answered {
                        return self.crash(); // the request left; its answer is lost
                    }
                    if let Some((call, input)) = answer {
                        let _ = self.list.handle_input(self.now, call, input);
                    }
                    if dies_now {
                        return self.crash();
                    }
                }
                _ => {
                    if dies_now {
                        return self.crash();
                    }
                }
            }
        }
    }

    fn work(&mut self, pick: u8) {
        let now = self.now;
        self.jobs.book.dispatch(now);
        let jobs = self.jobs.book.list(&owner());
        if let Some(j) = jobs
            .iter()
            .filter(|j| j.status == Status::Processing)
            .nth(usize::from(pick) % 2)
        {
            let _ = self.jobs.book.complete(now, &j.id, json!({"ok": true}));
        }
        self.jobs.book.dispatch(now);
        let call = CallId(u64::from(pick) | 1);
        let id = task_id(call);
        if self.registry.cancel_requested(&id) {
            let _ = self.registry.settle_cancelled(now, &id);
        } else if pick % 3 == 0 {
            let done = ToolResult {
                is_error: false,
                value: json!({"content": []}).into(),
            };
            let _ = self.registry.complete(now, &id, done);
        } else if pick % 3 == 1 {
            let error = RpcError {
                code: -32603,
                message: "boom".into(),
                data: None,
            };
            let _ = self.registry.fail(now, &id, error);
        }
    }

    fn step(&mut self, op: &Op) {
        match *op {
            Op::Tick(dt) => {
                self.now += u64::from(dt);
                self.list.handle_timeout(self.now);
                self.run(None);
            }
            Op::Press(c) => {
                let call = CallId(c.into());
                if self
                    .list
                    .handle_input(self.now, call, Input::CancelPressed)
                    .is_ok()
                {
                    let (v, _) = self.list.versions(call).unwrap();
                    self.pressed.insert(call, v);
                }
                self.run(None);
            }
            Op::Work(pick) => {
                self.work(pick);
                self.run(None);
            }
            Op::Crash { after, answered } => {
                self.list.handle_timeout(self.now);
                self.run(Some((after, answered)));
                self.pressed.clear(); // a press not yet written died with the host
            }
        }
    }

    /// No more crashes: the workers finish everything and the host follows until its list is
    /// empty.
    fn finish(&mut self) {
        self.run(None);
        for round in 0..2_000u32 {
            if self.list.is_empty() {
                return;
            }
            self.work((round % 6) as u8);
            self.now = self
                .list
                .poll_timeout()
                .unwrap_or(self.now)
                .max(self.now + 1);
            self.list.handle_timeout(self.now);
            self.run(None);
        }
        panic!("the list never emptied: {} calls left", self.list.len());
    }
}

fn expected(model_is_job: bool, status: Status) -> Outcome {
    match (model_is_job, status) {
        (_, Status::Completed) => Outcome::Succeeded,
        (true, Status::Failed) => Outcome::Failed,
        (false, Status::Failed) => Outcome::ProtocolFailure,
        (_, Status::Cancelled | Status::Canceled) => Outcome::Cancelled,
        (_, Status::Expired) => Outcome::Expired,
        (_, s) => panic!("not terminal: {s}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn a_host_that_crashes_anywhere_loses_nothing(
        first in proptest::option::of((0..30u8, any::<bool>())),
        ops in proptest::collection::vec(op(), 0..40),
    ) {
        let mut w = World::new();
        // The first run creates every call: a crash there lands between intents, creates and
        // handles.
        w.run(first);
        for op in &ops {
            w.step(op);
        }
        w.finish();
        prop_assert!(w.store.is_empty(), "every record was removed");
        for (call, n) in &w.tools_calls {
            prop_assert_eq!(*n, 1, "tools/call for {} sent {} times", call, n);
        }
        prop_assert!(w.jobs.book.len() <= (CALLS as usize).div_ceil(2));
        for i in 0..CALLS {
            let call = CallId(i);
            let status = w.server_status(call);
            match w.reported.get(&call) {
                Some(outcome) => {
                    prop_assert!(status.is_some(), "{call}: reported, nothing on the server");
                    let status = status.unwrap();
                    prop_assert_eq!(*outcome, expected(is_job(call), status));
                }
                // Its intent record was never written, or it was reconciled and nothing found:
                // then nothing may have been sent for it.
                None => {
                    prop_assert!(!w.creates_sent.contains_key(&call), "{call}: sent, never reported");
                    prop_assert!(status.is_none(), "{call}: on the server, never reported");
                }
            }
        }
        for call in &w.durable_presses {
            if !is_job(*call) {
                prop_assert!(w.cancels_received.contains(call), "{call}: a written press was lost");
            }
        }
    }
}
