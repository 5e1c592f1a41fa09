//! The other side of the wire for the watch demo: the core's reference servers (a 2026 and a
//! 2025 `TaskRegistry`, a `JobBook`), answered in-process through the testkit's answering
//! functions, with scripted workers. They keep their own counters, which the summary checks.

use std::collections::{BTreeMap, BTreeSet};

use longcall::server::{CancelMode, JobBookConfig, RegistryConfig, TaskRegistry};
use longcall::tracker::{Input, Request};
use longcall::view::{RpcError, ToolResult};
use longcall::watch::{CallId, Intent};
use longcall::Model;
use longcall_testkit::{task_answer, JobServer, PRINCIPAL};
use serde_json::json;

/// The `pollIntervalMs` / `pollInterval` both task servers state: a floor for every poll.
pub const SERVER_INTERVAL_MS: u64 = 500;
/// The input key the asking tools use.
pub const INPUT_KEY: &str = "confirm";

/// How a call's work ends, as its worker writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// A result (`isError: false`), or a completed job.
    Result,
    /// A tool result with `isError: true`.
    ToolError,
    /// A JSON-RPC error, or a failed job.
    Error,
    /// Settled cancelled after a cancel request.
    Cancelled,
}

/// What one call's worker does.
#[derive(Clone, Copy, Debug)]
pub struct Script {
    pub model: Model,
    /// How long the work runs (from creation, or from the start for a job).
    pub work_ms: u64,
    /// How it ends unless cancelled first.
    pub ending: Ending,
    /// A 2026 tool that asks the user to confirm, this long after creation.
    pub asks_after_ms: Option<u64>,
}

/// The worker's progress on one call.
#[derive(Clone, Debug, Default)]
struct Work {
    created_at: Option<u64>,
    /// Jobs: when generation started.
    started_at: Option<u64>,
    asked: bool,
    answered_at: Option<u64>,
    /// What the worker wrote as the terminal state (the servers' own truth).
    ended: Option<Ending>,
}

/// The reference servers and their counters.
pub struct Servers {
    tasks_2026: TaskRegistry,
    tasks_2025: TaskRegistry,
    jobs: JobServer,
    scripts: BTreeMap<CallId, Script>,
    work: BTreeMap<CallId, Work>,
    /// `tools/call` and job submits received, per call (a job submit sent again with its key
    /// is counted here too).
    pub creates: BTreeMap<CallId, u32>,
    /// Times of every `tasks/get` / `jobs_get`, per call.
    pub polls: BTreeMap<CallId, Vec<u64>>,
    /// Calls whose cancel reached the server.
    pub cancels: BTreeSet<CallId>,
    /// Input keys the workers asked, per call.
    pub keys_asked: BTreeSet<(CallId, String)>,
}

/// The id a server gives the call's task or job (the call id is in it, so answers route back).
pub fn handle_of(call: CallId, model: Model) -> String {
    match model {
        Model::Job => format!("job-{call}"),
        _ => format!("task-{call}"),
    }
}

impl Servers {
    /// Empty servers that will run `scripts`; the job server runs `job_slots` jobs at a time
    /// (the rest wait in its queue).
    pub fn new(scripts: BTreeMap<CallId, Script>, job_slots: usize) -> Servers {
        let config = RegistryConfig {
            poll_interval_ms: Some(SERVER_INTERVAL_MS),
            cancel: CancelMode::Cooperative,
            ..RegistryConfig::default()
        };
        let registry = |model| {
            TaskRegistry::new(model, config.clone()).expect("the demo's registry config is valid")
        };
        Servers {
            tasks_2026: registry(Model::Task2026),
            tasks_2025: registry(Model::Task2025),
            jobs: JobServer::new(JobBookConfig {
                concurrency_per_workspace: job_slots,
                queue_limit_per_workspace: 1_000,
                cost_per_job: 0,
            }),
            scripts,
            work: BTreeMap::new(),
            creates: BTreeMap::new(),
            polls: BTreeMap::new(),
            cancels: BTreeSet::new(),
            keys_asked: BTreeSet::new(),
        }
    }

    fn registry(&mut self, model: Model) -> &mut TaskRegistry {
        match model {
            Model::Task2025 => &mut self.tasks_2025,
            _ => &mut self.tasks_2026,
        }
    }

    /// The creating request (`tools/call` answered with a task, or a job submit) and its
    /// answer.
    pub fn create(&mut self, now: u64, call: CallId, intent: &Intent) -> Input {
        *self.creates.entry(call).or_default() += 1;
        let id = handle_of(call, intent.model);
        self.work
            .entry(call)
            .or_default()
            .created_at
            .get_or_insert(now);
        if intent.model == Model::Job {
            let owner = self.jobs.owner.clone();
            let submitted =
                self.jobs
                    .book
                    .submit(now, &owner, &id, intent.idempotency_key.as_deref());
            // The queue holds every call of the demo, so a refusal is not expected; were it to
            // come, the host reconciles it like a lost answer, never by a blind re-send.
            return submitted.map_or(Input::CreateUnanswered, |job| Input::JobCreated { job });
        }
        match self
            .registry(intent.model)
            .create(now, PRINCIPAL, &id, None)
        {
            Ok(task) => Input::TaskCreated { task },
            // Only a second `tools/call` for the same call gets here; the summary counts it.
            Err(_) => Input::CreateUnanswered,
        }
    }

    /// The answer to a tracker's request, or `None` while a 2025 `tasks/result` blocks.
    pub fn answer(&mut self, now: u64, call: CallId, model: Model, req: &Request) -> Option<Input> {
        match req {
            Request::Get { .. } => self.polls.entry(call).or_default().push(now),
            Request::Cancel { .. } => {
                self.cancels.insert(call);
            }
            _ => {}
        }
        let id = handle_of(call, model);
        if model == Model::Job {
            let answer = self.jobs.answer(now, req);
            if let Some(Input::CancelAnswered {
                answer: longcall::cancel::CancelAnswer::Job { status },
            }) = &answer
            {
                if status.is_terminal() {
                    self.work.entry(call).or_default().ended = Some(Ending::Cancelled);
                }
            }
            return answer;
        }
        let answer = task_answer(self.registry(model), now, PRINCIPAL, &id, req);
        if model == Model::Task2025 && matches!(req, Request::Cancel { .. }) {
            // A 2025 cancel settles the task before it answers.
            let settled = self
                .tasks_2025
                .peek(&id)
                .is_some_and(|t| t.status.is_terminal());
            let work = self.work.entry(call).or_default();
            if settled && work.ended.is_none() {
                work.ended = Some(Ending::Cancelled);
            }
        }
        answer
    }

    /// The workers move: jobs start as slots free, tasks ask for input, take answers, honour
    /// cancel requests and finish when their time comes.
    pub fn work(&mut self, now: u64) {
        let owner = self.jobs.owner.clone();
        let _ = self.jobs.book.dispatch(now);
        let calls: Vec<CallId> = self
            .work
            .iter()
            .filter(|(_, w)| w.ended.is_none())
            .map(|(c, _)| *c)
            .collect();
        for call in calls {
            let Some(script) = self.scripts.get(&call).copied() else {
                continue;
            };
            let id = handle_of(call, script.model);
            let Some(work) = self.work.get(&call).cloned() else {
                continue;
            };
            if work.ended.is_some() {
                continue;
            }
            let Some(created) = work.created_at else {
                continue;
            };
            if script.model == Model::Job {
                let started = match work.started_at {
                    Some(at) => at,
                    None => {
                        let processing = self
                            .jobs
                            .book
                            .peek(&id)
                            .is_some_and(|(_, j)| j.status == longcall::Status::Processing);
                        if !processing {
                            continue;
                        }
                        if let Some(w) = self.work.get_mut(&call) {
                            w.started_at = Some(now);
                        }
                        now
                    }
                };
                if now >= started + script.work_ms {
                    let write = match script.ending {
                        Ending::Error => self.jobs.book.fail(now, &id, json!({"code": "nsfw"})),
                        _ => self
                            .jobs
                            .book
                            .complete(now, &id, json!({"url": format!("{id}.png")})),
                    };
                    let status = self.jobs.book.get(&owner, &id).map(|j| j.status);
                    if matches!(write, longcall::server::WriteOutcome::Applied) {
                        let ending = match status {
                            Ok(longcall::Status::Failed) => Ending::Error,
                            _ => Ending::Result,
                        };
                        self.set_ended(call, ending);
                    }
                }
                continue;
            }
            let model = script.model;
            if self.registry(model).cancel_requested(&id) {
                let _ = self.registry(model).settle_cancelled(now, &id);
                self.set_ended(call, Ending::Cancelled);
                continue;
            }
            let mut done_at = created + script.work_ms;
            if let Some(after) = script.asks_after_ms {
                if !work.asked {
                    if now >= created + after {
                        let request = json!({
                            "method": "elicitation/create",
                            "params": {"message": format!("Render {id}: confirm?")},
                        });
                        let _ = self
                            .registry(model)
                            .request_input(now, &id, INPUT_KEY, request);
                        self.keys_asked.insert((call, INPUT_KEY.into()));
                        if let Some(w) = self.work.get_mut(&call) {
                            w.asked = true;
                        }
                    }
                    continue;
                }
                let answered_at = match work.answered_at {
                    Some(at) => at,
                    None => {
                        if self.registry(model).take_input_responses(&id).is_empty() {
                            continue;
                        }
                        if let Some(w) = self.work.get_mut(&call) {
                            w.answered_at = Some(now);
                        }
                        now
                    }
                };
                done_at = done_at.max(answered_at + 500);
            }
            if now < done_at {
                continue;
            }
            let reg = self.registry(model);
            let _ = match script.ending {
                Ending::Result | Ending::Cancelled => reg.complete(
                    now,
                    &id,
                    ToolResult {
                        is_error: false,
                        value: json!({"content": [{"type": "text", "text": format!("{id} done")}]}).into(),
                    },
                ),
                Ending::ToolError => reg.complete(
                    now,
                    &id,
                    ToolResult {
                        is_error: true,
                        value: json!({"content": [{"type": "text", "text": "no such file"}], "isError": true}).into(),
                    },
                ),
                Ending::Error => reg.fail(
                    now,
                    &id,
                    RpcError {
                        code: -32603,
                        message: "the renderer crashed".into(),
                        data: None,
                    },
                ),
            };
            self.set_ended(call, script.ending);
        }
    }

    fn set_ended(&mut self, call: CallId, ending: Ending) {
        let w = self.work.entry(call).or_default();
        if w.ended.is_none() {
            w.ended = Some(ending);
        }
    }

    /// The next time a worker has something to do, after `now`.
    pub fn next_event(&self, now: u64) -> Option<u64> {
        let mut next: Option<u64> = None;
        let mut at = |t: u64| {
            if t > now {
                next = Some(next.map_or(t, |n| n.min(t)));
            }
        };
        for (call, work) in &self.work {
            let (Some(script), None) = (self.scripts.get(call), work.ended) else {
                continue;
            };
            let Some(created) = work.created_at else {
                continue;
            };
            if script.model == Model::Job {
                if let Some(started) = work.started_at {
                    at(started + script.work_ms);
                }
                continue;
            }
            match (script.asks_after_ms, work.asked, work.answered_at) {
                (Some(after), false, _) => at(created + after),
                (Some(_), true, None) => {} // waits for the user's answer
                (Some(_), true, Some(answered)) => {
                    at((created + script.work_ms).max(answered + 500))
                }
                (None, _, _) => at(created + script.work_ms),
            }
        }
        next
    }

    /// What the servers' workers wrote as the call's end, if it ended.
    pub fn ended(&self, call: CallId) -> Option<Ending> {
        self.work.get(&call).and_then(|w| w.ended)
    }
}
