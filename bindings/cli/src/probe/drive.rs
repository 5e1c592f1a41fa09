//! What the probe does to a server: seeded random actions of the kind a real client takes, each
//! resolved against the session's own tasks when it runs, so that a recorded list of actions can be
//! replayed (whole or in part) against a fresh session. Requests are built by the core's codec
//! (`longcall::endpoint::codec`); nothing here judges an answer.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use longcall::endpoint::codec;
use longcall::tracker::Request;
use longcall::wire::Id;
use longcall::Json;
use longcall::Model;
use serde::Serialize;
use serde_json::{json, Map, Value};

use super::wire::{Answer, Session};

/// A tool to drive, with the arguments to call it with.
#[derive(Clone, Debug, Serialize)]
pub struct Tool {
    pub name: String,
    pub arguments: Value,
}

/// One step. Tasks are named by the step that created them (`call`: the index of that `Call`
/// in the original run), so removing steps keeps the others meaning the same thing.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "do", rename_all = "snake_case")]
pub enum Action {
    /// `tools/call` (continued through MRTR rounds when the server asks for input first).
    Call { step: usize, tool: usize },
    /// `tasks/get`, `late_ms` after the server's own interval.
    Get { call: usize, late_ms: u64 },
    /// `tasks/update` with some of the keys the task asks (by bit) and maybe a key never asked.
    Update {
        call: usize,
        pick: u64,
        unknown: bool,
    },
    /// `tasks/cancel`, at whatever moment this is.
    Cancel { call: usize },
    /// A `tasks/*` request for an id the server never issued.
    Unknown { method: u8, id: String },
    /// A `tasks/*` request from the second principal for the first one's task.
    Foreign { call: usize, method: u8 },
}

impl Action {
    /// The creating step of the task this action is about, if any.
    pub fn call(&self) -> Option<usize> {
        match self {
            Action::Call { step, .. } => Some(*step),
            Action::Get { call, .. }
            | Action::Update { call, .. }
            | Action::Cancel { call }
            | Action::Foreign { call, .. } => Some(*call),
            Action::Unknown { .. } => None,
        }
    }
}

/// What the session knows about a task it created.
#[derive(Default)]
struct Slot {
    task_id: String,
    interval_ms: u64,
    /// Not before this instant (the last answer about the task plus the floor).
    next_poll: Option<Instant>,
    terminal: bool,
    result_fetched: bool,
    asked: Vec<String>,
    answered: BTreeSet<String>,
    schemas: BTreeMap<String, Value>,
    /// Looks at the task since the probe last answered some of its input (`None`: never).
    looks_since_answer: Option<u32>,
}

impl Slot {
    /// The keys asked and not answered yet.
    fn open(&self) -> impl Iterator<Item = &String> {
        self.asked.iter().filter(|k| !self.answered.contains(*k))
    }
}

/// How many looks a client mostly gives a task after answering it or cancelling it: enough to see
/// what the answer or cancel led to, without the walk then staying on one task.
const WATCH_LOOKS: u32 = 4;

/// How many times the client looks at a task after answering part of its input before it
/// answers again. A person answers a round's questions one or a few at a time and the client
/// polls meanwhile; looking twice is what shows a server that drops an answered key and later
/// asks it again (the first look sees it gone, the second sees it back).
const LOOKS_BEFORE_NEXT_ANSWER: u32 = 2;

/// The probe's limits and choices.
#[derive(Clone, Debug)]
pub struct Limits {
    pub default_interval_ms: u64,
    pub min_gap_ms: u64,
}

/// A running session and its tasks.
pub struct Driver<'a> {
    pub session: Session,
    tools: &'a [Tool],
    limits: Limits,
    slots: BTreeMap<usize, Slot>,
    last_send: Option<Instant>,
    unknown_keys: usize,
    /// How often each tool was called.
    tool_uses: Vec<usize>,
    /// The task the last `tasks/update` or `tasks/cancel` went to, and how many more looks the
    /// client gives it before it turns to the others ([`WATCH_LOOKS`]).
    watch: Option<(usize, u32)>,
}

const TERMINAL: [&str; 3] = ["completed", "failed", "cancelled"];

fn task_view(model: Model, result: &Value) -> Option<&Value> {
    match model {
        Model::Task2025 => result.get("task").or(Some(result)),
        _ => Some(result),
    }
}

/// A plausible answer to an elicitation request: accept, with a value of the right type for
/// every property of its schema.
fn answer_for(request: &Value) -> Value {
    let mut content = Map::new();
    let props = request
        .pointer("/params/requestedSchema/properties")
        .and_then(Value::as_object);
    for (k, schema) in props.into_iter().flatten() {
        let v = match schema.get("type").and_then(Value::as_str) {
            Some("boolean") => json!(true),
            Some("number" | "integer") => json!(1),
            _ => json!("probe"),
        };
        content.insert(k.clone(), v);
    }
    json!({"action": "accept", "content": content})
}

impl<'a> Driver<'a> {
    pub fn new(session: Session, tools: &'a [Tool], limits: Limits) -> Driver<'a> {
        Driver {
            session,
            tools,
            limits,
            slots: BTreeMap::new(),
            last_send: None,
            unknown_keys: 0,
            watch: None,
            tool_uses: vec![0; tools.len()],
        }
    }

    /// Tasks created so far (by their creating step).
    pub fn calls(&self) -> Vec<usize> {
        self.slots.keys().copied().collect()
    }

    /// Every task id the server gave, by the step that created it.
    pub fn handles(&self) -> BTreeMap<String, usize> {
        self.slots
            .iter()
            .map(|(k, s)| (s.task_id.clone(), *k))
            .collect()
    }

    /// The creating step of the task with this id.
    pub fn step_of(&self, task_id: &str) -> Option<usize> {
        self.slots
            .iter()
            .find(|(_, s)| s.task_id == task_id)
            .map(|(k, _)| *k)
    }

    /// Tasks not seen settled yet.
    pub fn live_calls(&self) -> Vec<usize> {
        self.slots
            .iter()
            .filter(|(_, s)| !s.terminal)
            .map(|(k, _)| *k)
            .collect()
    }

    /// The live task whose next poll is due first (a client polls each task on its own
    /// schedule, so the one waiting longest goes next).
    pub fn due_first(&self) -> Option<usize> {
        self.slots
            .iter()
            .filter(|(_, s)| !s.terminal)
            .min_by_key(|(_, s)| s.next_poll)
            .map(|(k, _)| *k)
    }

    /// How many keys the task of `call` asks that the probe has not answered yet and would
    /// answer now: none while it is still looking at the task after its last answer
    /// ([`LOOKS_BEFORE_NEXT_ANSWER`]). Only the choice of the next action waits; a recorded
    /// `Update` replayed while shrinking answers what is open then, so dropping a look from a
    /// candidate does not change what the update sends.
    pub fn open_keys(&self, call: usize) -> usize {
        self.slots.get(&call).map_or(0, |s| {
            let looking = s
                .looks_since_answer
                .is_some_and(|n| n < LOOKS_BEFORE_NEXT_ANSWER);
            if looking {
                0
            } else {
                s.open().count()
            }
        })
    }

    fn model(&self) -> Model {
        self.session.model
    }

    /// The polite gap between any two requests.
    fn pace(&mut self) {
        if let Some(last) = self.last_send {
            let due = last + Duration::from_millis(self.limits.min_gap_ms);
            std::thread::sleep(due.saturating_duration_since(Instant::now()));
        }
        self.last_send = Some(Instant::now());
    }

    fn send(&mut self, principal: usize, built: codec::Built) -> Result<Answer, String> {
        self.pace();
        self.session.send(principal, built.message, built.headers)
    }

    fn request(&mut self, principal: usize, r: &Request) -> Result<Answer, String> {
        let id = Id::Number(self.session.next_id());
        let built = codec::build_request(self.model(), r, id).map_err(|e| e.to_string())?;
        self.send(principal, built)
    }

    /// Reads a task the server reported and remembers what the next steps need.
    fn note(&mut self, call: usize, task: &Value, answer_at: Instant) {
        let Some(slot) = self.slots.get_mut(&call) else {
            return;
        };
        if let Some(iv) = task
            .get("pollIntervalMs")
            .or_else(|| task.get("pollInterval"))
            .and_then(Value::as_u64)
        {
            slot.interval_ms = iv;
        }
        if let Some(s) = task.get("status").and_then(Value::as_str) {
            slot.terminal |= TERMINAL.contains(&s);
        }
        slot.asked.clear();
        slot.looks_since_answer = slot.looks_since_answer.map(|n| n.saturating_add(1));
        if let Some(reqs) = task.get("inputRequests").and_then(Value::as_object) {
            for (k, r) in reqs {
                slot.asked.push(k.clone());
                slot.schemas.insert(k.clone(), r.clone());
            }
        }
        slot.next_poll = Some(answer_at + Duration::from_millis(slot.interval_ms + 1));
    }

    fn touched(&mut self, call: usize, answer: &Answer) {
        if let Some(slot) = self.slots.get_mut(&call) {
            let floor = answer.retry_after_ms.unwrap_or(0).max(slot.interval_ms);
            slot.next_poll = Some(Instant::now() + Duration::from_millis(floor + 1));
        }
    }

    /// Runs one action. `Ok(false)`: it did not apply to this session (its task does not exist
    /// here) and sent nothing.
    pub fn run(&mut self, action: &Action) -> Result<bool, String> {
        let model = self.model();
        match action {
            Action::Call { step, tool } => {
                if let Some(n) = self.tool_uses.get_mut(*tool) {
                    *n += 1;
                }
                let Some(tool) = self.tools.get(*tool).cloned() else {
                    return Ok(false);
                };
                let mut responses = Map::new();
                // MRTR: the server may ask for input before it creates anything.
                for _round in 0..3 {
                    let id = Id::Number(self.session.next_id());
                    // A TTL is asked on the 2025 wire only (rule M-18).
                    let ttl = (model == Model::Task2025).then_some(60_000);
                    let mut built =
                        codec::build_call(model, id, &tool.name, tool.arguments.clone(), ttl)
                            .map_err(|e| e.to_string())?;
                    if !responses.is_empty() {
                        if let Some(p) = built
                            .message
                            .get_mut("params")
                            .and_then(Value::as_object_mut)
                        {
                            p.insert("inputResponses".into(), Value::Object(responses.clone()));
                        }
                    }
                    let answer = self.send(0, built)?;
                    let at = Instant::now();
                    let Some(r) = answer.result() else {
                        return Ok(true);
                    };
                    if model == Model::Task2026
                        && r.get("resultType").and_then(Value::as_str) == Some("input_required")
                    {
                        for (k, req) in r
                            .get("inputRequests")
                            .and_then(Value::as_object)
                            .into_iter()
                            .flatten()
                        {
                            responses.insert(k.clone(), answer_for(req));
                        }
                        continue;
                    }
                    let task = if model == Model::Task2026 {
                        (r.get("resultType").and_then(Value::as_str) == Some("task")).then_some(r)
                    } else {
                        r.get("task")
                    };
                    if let Some(task) = task.cloned() {
                        if let Some(tid) = task.get("taskId").and_then(Value::as_str) {
                            self.slots.insert(
                                *step,
                                Slot {
                                    task_id: tid.to_string(),
                                    interval_ms: self.limits.default_interval_ms,
                                    ..Slot::default()
                                },
                            );
                            self.note(*step, &task, at);
                        }
                    }
                    return Ok(true);
                }
                Ok(true)
            }
            Action::Get { call, late_ms } => {
                let Some(slot) = self.slots.get(call) else {
                    return Ok(false);
                };
                let tid = slot.task_id.clone();
                let due =
                    slot.next_poll.unwrap_or_else(Instant::now) + Duration::from_millis(*late_ms);
                std::thread::sleep(due.saturating_duration_since(Instant::now()));
                let answer = self.request(
                    0,
                    &Request::Get {
                        handle: tid.clone(),
                    },
                )?;
                if let Some((c, looks)) = &mut self.watch {
                    if c == call {
                        *looks = looks.saturating_sub(1);
                    }
                }
                let at = Instant::now();
                match answer.result().and_then(|r| task_view(model, r)).cloned() {
                    Some(task) => self.note(*call, &task, at),
                    None => self.touched(*call, &answer),
                }
                // 2025: the payload of a settled task comes from tasks/result.
                let fetch = model == Model::Task2025
                    && self
                        .slots
                        .get(call)
                        .is_some_and(|s| s.terminal && !s.result_fetched);
                if fetch {
                    if let Some(s) = self.slots.get_mut(call) {
                        s.result_fetched = true;
                    }
                    self.request(0, &Request::FetchResult { handle: tid })?;
                }
                Ok(true)
            }
            Action::Update {
                call,
                pick,
                unknown,
            } => {
                if model != Model::Task2026 {
                    return Ok(false);
                }
                let Some(slot) = self.slots.get(call) else {
                    return Ok(false);
                };
                let open: Vec<String> = slot.open().cloned().collect();
                let mut responses: Vec<(String, Json)> = open
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| pick >> (i % 64) & 1 == 1)
                    .map(|(_, k)| {
                        (
                            k.clone(),
                            answer_for(slot.schemas.get(k).unwrap_or(&Value::Null)).into(),
                        )
                    })
                    .collect();
                if *unknown {
                    self.unknown_keys += 1;
                    responses.push((
                        format!("probe-unasked-{}", self.unknown_keys),
                        json!({"action": "decline"}).into(),
                    ));
                }
                if responses.is_empty() {
                    return Ok(false);
                }
                let tid = slot.task_id.clone();
                if let Some(s) = self.slots.get_mut(call) {
                    for (k, _) in &responses {
                        s.answered.insert(k.clone());
                    }
                    s.looks_since_answer = Some(0);
                    self.watch = Some((*call, WATCH_LOOKS));
                    // What is still asked is known again only from the next look at the task.
                    s.asked.clear();
                }
                let answer = self.request(
                    0,
                    &Request::Update {
                        handle: tid,
                        responses,
                    },
                )?;
                self.touched(*call, &answer);
                Ok(true)
            }
            Action::Cancel { call } => {
                let Some(slot) = self.slots.get(call) else {
                    return Ok(false);
                };
                let handle = slot.task_id.clone();
                self.watch = Some((*call, WATCH_LOOKS));
                let answer = self.request(
                    0,
                    &Request::Cancel {
                        handle,
                        idempotency_key: None,
                    },
                )?;
                let at = Instant::now();
                if model == Model::Task2025 {
                    if let Some(task) = answer.result().and_then(|r| task_view(model, r)).cloned() {
                        self.note(*call, &task, at);
                        return Ok(true);
                    }
                }
                self.touched(*call, &answer);
                Ok(true)
            }
            Action::Unknown { method, id } => {
                let r = self.by_method(*method, id.clone());
                self.request(0, &r)?;
                Ok(true)
            }
            Action::Foreign { call, method } => {
                if self.session.principals() < 2 {
                    return Ok(false);
                }
                let Some(slot) = self.slots.get(call) else {
                    return Ok(false);
                };
                let r = self.by_method(*method, slot.task_id.clone());
                self.request(1, &r)?;
                Ok(true)
            }
        }
    }

    fn by_method(&mut self, method: u8, handle: String) -> Request {
        match (method % 3, self.model()) {
            (1, _) => Request::Cancel {
                handle,
                idempotency_key: None,
            },
            (2, Model::Task2026) => {
                self.unknown_keys += 1;
                Request::Update {
                    handle,
                    responses: vec![(
                        format!("probe-unasked-{}", self.unknown_keys),
                        json!({"action": "decline"}).into(),
                    )],
                }
            }
            _ => Request::Get { handle },
        }
    }
}

/// A small seeded generator (splitmix64): the same seed gives the same run.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next() % n
        }
    }
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> Option<T> {
        items.get(self.below(items.len() as u64) as usize).copied()
    }
}

/// The next action for a session in this state: what a real client might do now. Mostly polls
/// of tasks still running (at the floor, sometimes later), answers to what they ask, now and then
/// a cancel, a new task, an unknown id, or the second principal trying the first one's task.
pub fn next_action(rng: &mut Rng, d: &Driver<'_>, step: usize) -> Action {
    let all = d.calls();
    let live = d.live_calls();
    let call_weight = match live.len() {
        0 => 60,
        1 => 20,
        _ => 6,
    };
    if all.is_empty() || rng.below(100) < call_weight {
        // Every tool gets its turn: one of the least called so far.
        let least = d.tool_uses.iter().min().copied().unwrap_or(0);
        let fewest: Vec<usize> = (0..d.tools.len())
            .filter(|i| d.tool_uses.get(*i) == Some(&least))
            .collect();
        return Action::Call {
            step,
            tool: rng.pick(&fewest).unwrap_or(0),
        };
    }
    let call = match d.watch {
        // After answering input or cancelling, a client mostly watches that task for a while.
        Some((c, looks)) if looks > 0 && all.contains(&c) && rng.below(10) < 6 => c,
        // Otherwise mostly the task whose poll is due first, as a client's schedule has it.
        _ if !live.is_empty() && rng.below(10) < 8 => match rng.below(2) {
            0 => d.due_first().unwrap_or(0),
            _ => rng.pick(&live).unwrap_or(0),
        },
        _ => rng.pick(&all).unwrap_or(0),
    };
    let interval_ms = d
        .slots
        .get(&call)
        .map_or(d.limits.default_interval_ms, |s| s.interval_ms)
        .min(2000);
    let get = |rng: &mut Rng| {
        // At the floor most of the time, sometimes a little or much later.
        let late_ms = match rng.below(6) {
            0..=3 => 0,
            4 => rng.below(interval_ms.max(1)),
            _ => 2 * interval_ms,
        };
        Action::Get { call, late_ms }
    };
    let open = d.open_keys(call) as u64;
    // A task that asks for input gets answers more often, often one key at a time.
    let update_from = if open > 0 { 40 } else { 55 };
    match rng.below(100) {
        r if r < update_from => get(rng),
        r @ 40..=69 if r >= update_from && (open > 0 || rng.below(5) == 0) => Action::Update {
            call,
            pick: if rng.below(2) == 0 {
                1 << rng.below(open.clamp(1, 64))
            } else {
                rng.next() | 1
            },
            unknown: rng.below(4) == 0,
        },
        40..=69 => get(rng),
        // Half the cancels go to any task, settled or not: a cancel after the end is a case too.
        70..=77 => Action::Cancel {
            call: if rng.below(2) == 0 {
                rng.pick(&all).unwrap_or(call)
            } else {
                call
            },
        },
        78..=86 => Action::Unknown {
            method: rng.below(3) as u8,
            id: format!("{:016x}{:016x}", rng.next(), rng.next()),
        },
        _ if d.session.principals() >= 2 => Action::Foreign {
            call,
            method: rng.below(3) as u8,
        },
        _ => get(rng),
    }
}
