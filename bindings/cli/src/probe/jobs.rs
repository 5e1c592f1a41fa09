//! `longcall probe --jobs URL`: the probe against a job API (the Sume Open API, and the MCP job
//! tools' `jobs_wait` where the server serves them). Seeded actions of what a real client does:
//! submits with and without an `Idempotency-Key` and repeated keys, status requests at and
//! around the floors, cancels in every status, `jobs_wait` over 1 to 20 ids, unknown ids and
//! another key's ids. Requests are built by the core's codecs (`longcall::wire::sume_open`,
//! `longcall::wire::sume`); every exchange is written as a job log line (the format
//! `longcall check` reads) and judged only by [`super::judge`].

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use longcall::wire::sume::{self, WaitFor};
use longcall::wire::sume_open::{self, HttpRequest, Kind};
use longcall::{Model, Status};
use serde::Serialize;
use serde_json::{json, Map, Value};

use super::drive::Rng;
use super::wire::Principal;
use super::{conclude, fails, judge, secs, unusable, Judged, ProbeArgs, Probed, Replay};

/// A model to submit, with its arguments and the route its catalog kind gives (D-8).
#[derive(Clone, Debug, Serialize)]
pub struct JobModel {
    pub name: String,
    pub arguments: Value,
    #[serde(skip)]
    pub kind: Kind,
}

/// One step. Jobs are named by the step that submitted them (`job`), so removing steps keeps
/// the others meaning the same thing.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "do", rename_all = "snake_case")]
pub enum JobAction {
    /// A new intent: a submit, with an `Idempotency-Key` or without one.
    Submit {
        step: usize,
        model: usize,
        keyed: bool,
    },
    /// The submit of `job` sent again, same body and same key (a retry after a lost answer).
    Resubmit { job: usize },
    /// A status request, `late_ms` after the floor (the last answer plus the interval or its
    /// `Retry-After`). Once run, `age_ms` holds the job's age when it was sent, and a replay
    /// sends it at that age again (never before the floor), so removing earlier steps while
    /// shrinking does not change what the server has to say.
    Status {
        job: usize,
        late_ms: u64,
        #[serde(skip_serializing_if = "Option::is_none")]
        age_ms: Option<u64>,
    },
    /// A cancel, at whatever moment this is (queued, processing, settled, canceled); once run,
    /// at the job's age `age_ms` again.
    Cancel {
        job: usize,
        #[serde(skip_serializing_if = "Option::is_none")]
        age_ms: Option<u64>,
    },
    /// `jobs_wait` over these jobs (by bit of the jobs made so far, at most 20).
    Wait {
        pick: u64,
        any: bool,
        timeout_s: u32,
    },
    /// A status (`route` even) or cancel (odd) for an id never issued.
    Unknown { route: u8, id: String },
    /// The second key asks for the first one's job.
    Foreign { job: usize, route: u8 },
}

impl JobAction {
    /// The submitting step of the job this action is about.
    pub fn job(&self) -> Option<usize> {
        match self {
            JobAction::Submit { step, .. } => Some(*step),
            JobAction::Resubmit { job }
            | JobAction::Status { job, .. }
            | JobAction::Cancel { job, .. }
            | JobAction::Foreign { job, .. } => Some(*job),
            JobAction::Wait { .. } | JobAction::Unknown { .. } => None,
        }
    }
}

/// A server's answer.
struct JobAnswer {
    status: u16,
    body: Value,
    retry_after_ms: Option<u64>,
}

/// One session with a job API, recording every exchange as a job log.
pub struct JobSession {
    agent: ureq::Agent,
    base: String,
    principals: Vec<Principal>,
    t0: Instant,
    pub lines: Vec<Value>,
}

impl JobSession {
    fn open(base: &str, principals: Vec<Principal>, timeout: Duration) -> JobSession {
        let config = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(timeout))
            .build();
        JobSession {
            agent: ureq::Agent::new_with_config(config),
            base: base.trim_end_matches('/').to_string(),
            principals,
            t0: Instant::now(),
            lines: Vec::new(),
        }
    }

    fn now_ms(&self) -> u64 {
        self.t0.elapsed().as_millis() as u64
    }

    /// Sends one request as `principal` and records it beside its answer. An answer that never
    /// arrived is recorded as status 0 and returned as an error.
    fn send(&mut self, principal: usize, req: &HttpRequest) -> Result<JobAnswer, String> {
        let p = self.principals.get(principal).cloned();
        let body: Value = req
            .body
            .as_deref()
            .and_then(|b| serde_json::from_str(b).ok())
            .unwrap_or(Value::Null);
        let mut http = json!({"method": req.method, "path": req.path});
        for (k, v) in &req.headers {
            if k.eq_ignore_ascii_case(sume_open::IDEMPOTENCY_KEY_HEADER) {
                http["idempotency_key"] = Value::from(v.as_str());
            }
        }
        if let Some(p) = &p {
            http["principal"] = Value::from(p.label.as_str());
        }
        let t = self.now_ms();
        self.lines
            .push(json!({"t_ms": t, "dir": "c2s", "http": http, "body": body}));
        let url = format!("{}{}", self.base, req.path);
        let auth = p.and_then(|p| p.authorization);
        let result = if req.method == "GET" {
            let mut r = self.agent.get(&url);
            if let Some(a) = &auth {
                r = r.header("authorization", a);
            }
            for (k, v) in &req.headers {
                r = r.header(k.as_str(), v.as_str());
            }
            r.call()
        } else {
            let mut r = self
                .agent
                .post(&url)
                .header("content-type", "application/json");
            if let Some(a) = &auth {
                r = r.header("authorization", a);
            }
            for (k, v) in &req.headers {
                r = r.header(k.as_str(), v.as_str());
            }
            match &req.body {
                Some(b) => r.send(b.as_str()),
                None => r.send_empty(),
            }
        };
        let mut resp = match result {
            Ok(r) => r,
            Err(e) => {
                let t = self.now_ms();
                self.lines.push(
                    json!({"t_ms": t, "dir": "s2c", "http": {"status": 0}, "body": Value::Null}),
                );
                return Err(format!("HTTP request failed: {e}"));
            }
        };
        let status = resp.status().as_u16();
        let retry_after = resp
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .map(String::from);
        let text = resp.body_mut().read_to_string().unwrap_or_default();
        let body: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
        let mut http = json!({"status": status});
        if let Some(r) = &retry_after {
            http["retry_after"] = Value::from(r.as_str());
        }
        let t = self.now_ms();
        self.lines
            .push(json!({"t_ms": t, "dir": "s2c", "http": http, "body": body}));
        Ok(JobAnswer {
            status,
            body,
            retry_after_ms: retry_after.and_then(|r| {
                longcall::time::parse_retry_after_ms(&r, crate::serve::epoch_ms()).ok()
            }),
        })
    }
}

/// What the session knows about a job it submitted.
struct Slot {
    id: String,
    submit: HttpRequest,
    keyed: bool,
    last: Option<Status>,
    next_poll: Instant,
    /// When the submit was answered: ages count from here.
    submitted: Instant,
    /// When the last status or cancel request about it went out.
    last_sent: Instant,
}

/// The probe's limits and choices for a job run.
#[derive(Clone, Debug)]
pub struct JobLimits {
    pub interval_ms: u64,
    pub min_gap_ms: u64,
    pub vary: String,
    pub wait_served: bool,
}

/// A running job session and its jobs.
pub struct JobDriver<'a> {
    pub session: JobSession,
    models: &'a [JobModel],
    limits: JobLimits,
    slots: BTreeMap<usize, Slot>,
    /// Not before this instant: the last submit's `Retry-After`.
    submit_floor: Option<Instant>,
    last_send: Option<Instant>,
    /// Keys and intents made unique per session, so a replay never meets an earlier run's key.
    nonce: String,
    intents: usize,
    uses: Vec<usize>,
    watch: Option<usize>,
    /// Submits answered as if the path were not there (404, 405, 501), and whether any made a job:
    /// a base URL that is no job API is said after a few, not after the whole run.
    unserved: (usize, u16),
    made_a_job: bool,
}

impl<'a> JobDriver<'a> {
    pub fn new(session: JobSession, models: &'a [JobModel], limits: JobLimits) -> JobDriver<'a> {
        let nonce = format!(
            "{:x}",
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as u64)
                ^ u64::from(std::process::id())
        );
        JobDriver {
            session,
            models,
            limits,
            slots: BTreeMap::new(),
            submit_floor: None,
            last_send: None,
            nonce,
            intents: 0,
            unserved: (0, 0),
            made_a_job: false,
            uses: vec![0; models.len()],
            watch: None,
        }
    }

    /// Jobs made so far (by their submitting step).
    pub fn jobs(&self) -> Vec<usize> {
        self.slots.keys().copied().collect()
    }

    fn live(&self) -> Vec<usize> {
        self.slots
            .iter()
            .filter(|(_, s)| !s.last.is_some_and(Status::is_terminal))
            .map(|(k, _)| *k)
            .collect()
    }

    /// The submitting step of the job with this id.
    pub fn step_of(&self, id: &str) -> Option<usize> {
        self.slots.iter().find(|(_, s)| s.id == id).map(|(k, _)| *k)
    }

    /// Every job id the server gave, by the step that submitted it.
    pub fn handles(&self) -> BTreeMap<String, usize> {
        self.slots.iter().map(|(k, s)| (s.id.clone(), *k)).collect()
    }

    fn send(&mut self, principal: usize, req: &HttpRequest) -> Result<JobAnswer, String> {
        if let Some(last) = self.last_send {
            let due = last + Duration::from_millis(self.limits.min_gap_ms);
            std::thread::sleep(due.saturating_duration_since(Instant::now()));
        }
        let a = self.session.send(principal, req);
        self.last_send = Some(Instant::now());
        a
    }

    /// Remembers what an answer about `job` says for the next steps (its status, its floor).
    fn note(&mut self, job: usize, status: Option<Status>, a: &JobAnswer) {
        let interval = self.limits.interval_ms;
        if let Some(slot) = self.slots.get_mut(&job) {
            if let Some(s) = status {
                slot.last = Some(s);
            }
            let floor = a.retry_after_ms.unwrap_or(0).max(interval);
            slot.next_poll = Instant::now() + Duration::from_millis(floor + 1);
        }
    }

    /// Runs one action: `Ok(Some(action as run))`, or `Ok(None)` when it does not apply to this
    /// session and sent nothing.
    pub fn run(&mut self, action: &JobAction) -> Result<Option<JobAction>, String> {
        let applied = self.apply(action)?;
        Ok(match (applied, action) {
            (false, _) => None,
            (true, JobAction::Status { job, late_ms, .. }) => Some(JobAction::Status {
                job: *job,
                late_ms: *late_ms,
                age_ms: self.age_ms(*job),
            }),
            (true, JobAction::Cancel { job, .. }) => Some(JobAction::Cancel {
                job: *job,
                age_ms: self.age_ms(*job),
            }),
            (true, a) => Some(a.clone()),
        })
    }

    /// How old the job is (since its submit was answered), as of the last request about it.
    fn age_ms(&self, job: usize) -> Option<u64> {
        let s = self.slots.get(&job)?;
        Some(
            s.last_sent
                .saturating_duration_since(s.submitted)
                .as_millis() as u64,
        )
    }

    /// The instant a replayed step about `job` is due: at the recorded age, never before
    /// `floor`.
    fn due(&self, job: usize, age_ms: Option<u64>, floor: Instant) -> Instant {
        match (self.slots.get(&job), age_ms) {
            (Some(s), Some(age)) => floor.max(s.submitted + Duration::from_millis(age)),
            _ => floor,
        }
    }

    /// Why the run cannot probe anything, once three submits were answered as if the API were
    /// not there and none made a job.
    fn unserved(&self) -> Option<String> {
        let (count, status) = self.unserved;
        (count >= 3 && !self.made_a_job).then(|| {
            format!(
                "{count} submits made no job, answered HTTP {status}: is {} the base URL of a Sume Open API?",
                self.session.base
            )
        })
    }

    fn apply(&mut self, action: &JobAction) -> Result<bool, String> {
        match action {
            JobAction::Submit { step, model, keyed } => {
                let Some(m) = self.models.get(*model).cloned() else {
                    return Ok(false);
                };
                if let Some(n) = self.uses.get_mut(*model) {
                    *n += 1;
                }
                self.intents += 1;
                let mut args = match &m.arguments {
                    Value::Object(o) => o.clone(),
                    _ => Map::new(),
                };
                // Each intent is its own: two submits of one body would be a resubmission.
                args.insert(
                    self.limits.vary.clone(),
                    Value::from(format!(
                        "longcall probe {} intent {}",
                        self.nonce, self.intents
                    )),
                );
                let key = format!("probe-{}-{}", self.nonce, self.intents);
                let mut req =
                    sume_open::submit_request(m.kind, &m.name, &Value::Object(args), &key)
                        .map_err(|e| e.to_string())?;
                if !keyed {
                    req.headers.clear();
                }
                let a = self.submit(&req, *keyed)?;
                if matches!(a.status, 404 | 405 | 501) {
                    self.unserved = (self.unserved.0 + 1, a.status);
                }
                if let Some(job) = sume_open::read_submit(&a.body)
                    .ok()
                    .filter(|_| a.status < 300)
                {
                    self.slots.insert(
                        *step,
                        Slot {
                            id: job.id,
                            submit: req,
                            keyed: *keyed,
                            last: None,
                            next_poll: Instant::now(),
                            submitted: Instant::now(),
                            last_sent: Instant::now(),
                        },
                    );
                    self.note(*step, Some(job.status), &a);
                    self.watch = Some(*step);
                    self.made_a_job = true;
                }
                Ok(true)
            }
            JobAction::Resubmit { job } => {
                let Some(slot) = self.slots.get(job).filter(|s| s.keyed) else {
                    return Ok(false);
                };
                let req = slot.submit.clone();
                self.submit(&req, true)?;
                Ok(true)
            }
            JobAction::Status {
                job,
                late_ms,
                age_ms,
            } => {
                let Some(slot) = self.slots.get(job) else {
                    return Ok(false);
                };
                let req = sume_open::status_request(&slot.id).map_err(|e| e.to_string())?;
                let floor = slot.next_poll;
                let due = match age_ms {
                    Some(_) => self.due(*job, *age_ms, floor),
                    None => floor + Duration::from_millis(*late_ms),
                };
                let id = slot.id.clone();
                std::thread::sleep(due.saturating_duration_since(Instant::now()));
                self.sent(*job);
                let a = self.send(0, &req)?;
                let status = (a.status < 300)
                    .then(|| sume_open::read_status(&id, &a.body).ok())
                    .flatten()
                    .map(|j| j.status);
                self.note(*job, status, &a);
                self.watch = Some(*job);
                Ok(true)
            }
            JobAction::Cancel { job, age_ms } => {
                let Some(slot) = self.slots.get(job) else {
                    return Ok(false);
                };
                let req = sume_open::cancel_request(&slot.id).map_err(|e| e.to_string())?;
                let due = self.due(*job, *age_ms, Instant::now());
                std::thread::sleep(due.saturating_duration_since(Instant::now()));
                self.sent(*job);
                let a = self.send(0, &req)?;
                let status = match sume_open::cancel_answer(a.status, Some(&a.body)) {
                    Ok(longcall::cancel::CancelAnswer::Job { status }) => Some(status.status()),
                    _ => None,
                };
                self.note(*job, status, &a);
                self.watch = Some(*job);
                Ok(true)
            }
            JobAction::Wait {
                pick,
                any,
                timeout_s,
            } => {
                if !self.limits.wait_served {
                    return Ok(false);
                }
                let all = self.jobs();
                let ids: Vec<String> = all
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| pick >> (i % 64) & 1 == 1)
                    .filter_map(|(_, j)| self.slots.get(j).map(|s| s.id.clone()))
                    .take(sume::MAX_WAIT_IDS)
                    .collect();
                let ids = match (ids.is_empty(), all.last().and_then(|j| self.slots.get(j))) {
                    // Nothing running any more: the newest job.
                    (true, Some(newest)) => vec![newest.id.clone()],
                    (true, None) => return Ok(false),
                    (false, _) => ids,
                };
                let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
                let wait_for = if *any { WaitFor::Any } else { WaitFor::All };
                let body = sume::wait_request(&refs, wait_for, Some(*timeout_s), false)
                    .map_err(|e| e.to_string())?;
                let req = HttpRequest {
                    method: "POST".into(),
                    path: "/jobs/wait".into(),
                    headers: Vec::new(),
                    body: Some(body.to_string()),
                };
                let a = self.send(0, &req)?;
                if let Some(w) = sume::read_wait(&a.body).ok().filter(|_| a.status < 300) {
                    for j in w.jobs {
                        if let Some(step) = self.step_of(&j.id) {
                            if let Some(slot) = self.slots.get_mut(&step) {
                                slot.last = Some(j.status);
                            }
                        }
                    }
                }
                Ok(true)
            }
            JobAction::Unknown { route, id } => {
                let req = if route % 2 == 0 {
                    sume_open::status_request(id)
                } else {
                    sume_open::cancel_request(id)
                }
                .map_err(|e| e.to_string())?;
                self.send(0, &req)?;
                Ok(true)
            }
            JobAction::Foreign { job, route } => {
                if self.session.principals.len() < 2 {
                    return Ok(false);
                }
                let Some(slot) = self.slots.get(job) else {
                    return Ok(false);
                };
                let req = if route % 2 == 0 {
                    sume_open::status_request(&slot.id)
                } else {
                    sume_open::cancel_request(&slot.id)
                }
                .map_err(|e| e.to_string())?;
                self.send(1, &req)?;
                Ok(true)
            }
        }
    }

    fn sent(&mut self, job: usize) {
        if let Some(s) = self.slots.get_mut(&job) {
            s.last_sent = Instant::now();
        }
    }

    /// Cancels every job of the session not seen settled, off the record (after the run's job
    /// log was taken), so the next session starts on an empty queue: a replay that met the
    /// queue an earlier session left would not show what the steps alone do.
    pub fn clean_up(&mut self) {
        let kept = self.session.lines.len();
        let open: Vec<String> = self
            .slots
            .values()
            .filter(|s| !s.last.is_some_and(Status::is_terminal))
            .map(|s| s.id.clone())
            .collect();
        for id in open {
            if let Ok(req) = sume_open::cancel_request(&id) {
                let _ = self.send(0, &req);
            }
        }
        self.session.lines.truncate(kept);
    }

    /// Sends a submit after the last refusal's `Retry-After`. A keyed submit refused with 429 or
    /// a retryable 5xx goes again with the same key, not before its `Retry-After`, at most three
    /// times (as a client does, E-11); one without a key is not sent again, since that would be
    /// a second intent.
    fn submit(&mut self, req: &HttpRequest, keyed: bool) -> Result<JobAnswer, String> {
        let mut tries = 0;
        loop {
            if let Some(floor) = self.submit_floor.take() {
                std::thread::sleep(floor.saturating_duration_since(Instant::now()));
            }
            let a = self.send(0, req)?;
            self.after_submit(&a);
            tries += 1;
            let again = keyed
                && tries < 3
                && sume_open::is_retryable(&sume_open::read_error(a.status, &[], Some(&a.body), 0));
            if a.status < 300 || !again {
                return Ok(a);
            }
        }
    }

    /// A refused submit's `Retry-After` is a floor for the next one.
    fn after_submit(&mut self, a: &JobAnswer) {
        if a.status >= 300 {
            let wait = a.retry_after_ms.unwrap_or(self.limits.interval_ms);
            self.submit_floor = Some(Instant::now() + Duration::from_millis(wait + 1));
        }
    }
}

/// The next action: what a real client might do now. Mostly status requests of jobs still
/// running, now and then a new intent, a retried submit, a cancel (at any moment), a wait, an
/// unknown id, or the second key trying the first one's job.
pub fn next_action(rng: &mut Rng, d: &JobDriver<'_>, step: usize) -> JobAction {
    let all = d.jobs();
    let live = d.live();
    let submit_weight = match live.len() {
        0 => 70,
        1 => 25,
        2..=3 => 12,
        _ => 3,
    };
    if all.is_empty() || rng.below(100) < submit_weight {
        let least = d.uses.iter().min().copied().unwrap_or(0);
        let fewest: Vec<usize> = (0..d.models.len())
            .filter(|i| d.uses.get(*i) == Some(&least))
            .collect();
        return JobAction::Submit {
            step,
            model: rng.pick(&fewest).unwrap_or(0),
            keyed: rng.below(4) != 0,
        };
    }
    let job = match d.watch {
        Some(j) if all.contains(&j) && rng.below(10) < 5 => j,
        _ if !live.is_empty() && rng.below(10) < 8 => rng.pick(&live).unwrap_or(0),
        _ => rng.pick(&all).unwrap_or(0),
    };
    let interval = d.limits.interval_ms.max(1);
    // What a client does next about the job it just submitted or looked at: cancel it while it
    // is queued or running (the cancels that matter most), send its submit again with the key
    // after a lost answer, wait for what is still running, or press cancel once more.
    let slot = d.slots.get(&job);
    let last = slot.and_then(|s| s.last);
    let running = matches!(last, Some(Status::Queued | Status::Processing));
    let keyed = slot.is_some_and(|s| s.keyed);
    if d.watch == Some(job) {
        match rng.below(16) {
            0..=2 if running => return JobAction::Cancel { job, age_ms: None },
            3..=4 if running && keyed => return JobAction::Resubmit { job },
            5..=6 if running && d.limits.wait_served => {
                return JobAction::Wait {
                    pick: live_mask(&all, &live),
                    any: rng.below(2) == 0,
                    timeout_s: rng.below(3) as u32,
                }
            }
            7..=8 if last == Some(Status::Canceled) => {
                return JobAction::Cancel { job, age_ms: None }
            }
            _ => {}
        }
    }
    match rng.below(100) {
        0..=49 => JobAction::Status {
            job,
            age_ms: None,
            late_ms: match rng.below(6) {
                0..=3 => 0,
                4 => rng.below(interval),
                _ => 2 * interval,
            },
        },
        50..=63 => JobAction::Cancel {
            job: if rng.below(3) == 0 {
                rng.pick(&all).unwrap_or(job)
            } else {
                job
            },
            age_ms: None,
        },
        64..=70 => JobAction::Resubmit { job },
        71..=82 if d.limits.wait_served => JobAction::Wait {
            // Mostly the jobs still running (a client waits for what it waits for), sometimes
            // one job, sometimes any mix of the jobs so far.
            pick: match rng.below(4) {
                0 => 1 << rng.below(all.len().clamp(1, 64) as u64),
                1 => rng.next() | 1,
                _ => live_mask(&all, &live),
            },
            any: rng.below(2) == 0,
            timeout_s: rng.below(3) as u32,
        },
        83..=89 => JobAction::Unknown {
            route: rng.below(2) as u8,
            id: format!("job_probe_{:016x}", rng.next()),
        },
        _ if d.session.principals.len() >= 2 => JobAction::Foreign {
            job,
            route: rng.below(2) as u8,
        },
        _ => JobAction::Status {
            job,
            late_ms: 0,
            age_ms: None,
        },
    }
}

/// The `Wait` pick of the jobs still running, by their place among all jobs.
fn live_mask(all: &[usize], live: &[usize]) -> u64 {
    all.iter()
        .enumerate()
        .filter(|(_, j)| live.contains(j))
        .fold(0u64, |m, (i, _)| m | 1 << (i % 64))
}

/// How the probe reaches a job API.
struct JobSetup {
    base: String,
    principals: Vec<Principal>,
    limits: JobLimits,
    timeout: Duration,
}

impl JobSetup {
    fn open(&self) -> JobSession {
        JobSession::open(&self.base, self.principals.clone(), self.timeout)
    }
}

/// Plays `actions` on a fresh session; a replay still running at `deadline` (the end of the
/// shrinking budget) is given up.
fn replay(
    setup: &JobSetup,
    models: &[JobModel],
    actions: &[JobAction],
    deadline: Instant,
) -> Result<Replay<JobAction>, String> {
    let mut d = JobDriver::new(setup.open(), models, setup.limits.clone());
    let mut applied = Vec::new();
    for a in actions {
        if Instant::now() >= deadline {
            d.clean_up();
            return Err("the shrinking budget ran out".into());
        }
        if let Some(a) = d.run(a)? {
            applied.push(a);
        }
    }
    let transcript = std::mem::take(&mut d.session.lines);
    d.clean_up();
    Ok(Replay {
        applied,
        model: Model::Job,
        handles: d.handles(),
        transcript,
    })
}

/// Reads `--model NAME[=ARGS]` (default: the reference server's `demo-image`) and asks each
/// model's kind from the catalog (not recorded: the run starts after it).
fn choose_models(session: &mut JobSession, args: &ProbeArgs) -> Result<Vec<JobModel>, String> {
    let mut wanted = Vec::new();
    for m in &args.models {
        match m.split_once('=') {
            Some((n, a)) => wanted.push((
                n.to_string(),
                serde_json::from_str::<Value>(a)
                    .map_err(|e| format!("--model {n}: the arguments are not JSON: {e}"))?,
            )),
            None => wanted.push((m.clone(), json!({}))),
        }
    }
    if wanted.is_empty() {
        wanted.push(("demo-image".into(), json!({})));
    }
    let mut out = Vec::new();
    for (name, arguments) in wanted {
        let req = sume_open::catalog_request(&name).map_err(|e| e.to_string())?;
        let a = session.send(0, &req)?;
        let kind = match (a.status, sume_open::read_catalog(&a.body)) {
            (200..=299, Ok(k)) => k,
            (401 | 403, _) => {
                return Err(format!(
                    "the catalog refused the credentials (HTTP {})",
                    a.status
                ))
            }
            // No catalog: the image route, as most models are images.
            _ => Kind::Image,
        };
        out.push(JobModel {
            name,
            arguments,
            kind,
        });
    }
    Ok(out)
}

/// `longcall probe --jobs URL`.
pub fn run(args: &ProbeArgs, seed: u64, base: &str) -> u8 {
    if args.auth.is_empty() {
        return unusable(
            args,
            seed,
            "a job API needs a key: give --auth 'Bearer KEY' (twice to probe another key's jobs)",
        );
    }
    let principals: Vec<Principal> = args
        .auth
        .iter()
        .enumerate()
        .map(|(i, a)| Principal {
            label: char::from(b'a' + (i % 26) as u8).to_string(),
            authorization: Some(a.clone()),
        })
        .collect();
    let t0 = Instant::now();
    let timeout = Duration::from_secs(args.answer_seconds);
    let mut session = JobSession::open(base, principals.clone(), timeout);
    let models = match choose_models(&mut session, args) {
        Ok(m) => m,
        Err(e) => return unusable(args, seed, &e),
    };
    // Whether the server serves the MCP job tools' jobs_wait: an empty wait is refused as a bad
    // request by a server that has the route, 404/405 by one that has not.
    let probe_wait = HttpRequest {
        method: "POST".into(),
        path: "/jobs/wait".into(),
        headers: Vec::new(),
        body: Some(json!({"job_ids": []}).to_string()),
    };
    let wait_served = match session.send(0, &probe_wait) {
        Ok(a) => !matches!(a.status, 404 | 405 | 501),
        Err(e) => return unusable(args, seed, &e),
    };
    session.lines.clear();
    let setup = JobSetup {
        base: base.to_string(),
        principals,
        timeout,
        limits: JobLimits {
            interval_ms: args.default_interval_ms,
            min_gap_ms: args.min_gap_ms,
            vary: args.vary.clone(),
            wait_served,
        },
    };
    let mut d = JobDriver::new(session, &models, setup.limits.clone());
    let mut rng = Rng::new(seed);
    let mut actions: Vec<JobAction> = Vec::new();
    let mut findings: Vec<Judged> = Vec::new();
    let mut transport_error = None;
    let deadline = t0 + Duration::from_secs(args.max_seconds);
    for step in 0..args.max_steps {
        if Instant::now() >= deadline {
            break;
        }
        let a = next_action(&mut rng, &d, step);
        match d.run(&a) {
            Ok(Some(a)) => actions.push(a),
            Ok(None) => continue,
            Err(e) => {
                transport_error = Some(e);
                break;
            }
        }
        if let Some(e) = d.unserved() {
            transport_error = Some(e);
            break;
        }
        findings = judge(Model::Job, &d.session.lines);
        if findings.iter().any(|f| fails(f, args.strict)) {
            break;
        }
    }
    let seconds = secs(t0.elapsed());
    let focus = super::focus(
        &findings,
        args.strict,
        &actions,
        |id| d.step_of(id),
        JobAction::job,
    );
    let transcript = std::mem::take(&mut d.session.lines);
    let jobs = d.jobs().len();
    d.clean_up();
    drop(d);
    let probed = Probed {
        server: base.to_string(),
        revision: if wait_served {
            "Open API + MCP job tools"
        } else {
            "Open API"
        },
        drives: ("models", serde_json::to_value(&models).unwrap_or_default()),
        drive_names: models.iter().map(|m| m.name.clone()).collect(),
        handles: ("jobs", jobs),
        actions,
        transcript,
        findings,
        transport_error,
        focus,
        model: Model::Job,
        seconds,
    };
    let deadline = Instant::now() + Duration::from_secs(args.shrink_seconds);
    conclude(
        args,
        seed,
        probed,
        |cand| replay(&setup, &models, cand, deadline),
        |best, verdicts, from, file| {
            scenario(
                base,
                &super::found_by(args, seed),
                best,
                verdicts,
                from,
                file,
            )
        },
    )
}

/// The shrunk run in words, for an issue on the server's tracker: each request and what came
/// back, job ids and keys as J1, K1, ..., and the verdicts [`judge`] gave on their lines.
fn scenario(
    server: &str,
    found_by: &str,
    run: &Replay<JobAction>,
    verdicts: &[Judged],
    from_steps: usize,
    file: &std::path::Path,
) -> String {
    use std::fmt::Write;
    let mut names: Vec<(char, String)> = Vec::new();
    fn label(names: &mut Vec<(char, String)>, kind: char, id: &str) -> String {
        let mine = |names: &Vec<(char, String)>| {
            names
                .iter()
                .filter(|(k, _)| *k == kind)
                .position(|(_, v)| v == id)
        };
        let n = mine(names).unwrap_or_else(|| {
            names.push((kind, id.to_string()));
            names.iter().filter(|(k, _)| *k == kind).count() - 1
        });
        format!("{kind}{}", n + 1)
    }
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Scenario against the job API at {server}, found by `{found_by}` and shrunk from {from_steps} to {} step(s):\n",
        run.applied.len()
    );
    let lines = &run.transcript;
    let (mut n, mut last_t) = (0, 0u64);
    let mut i = 0;
    while let Some(req) = lines.get(i) {
        i += 1;
        if req.get("dir").and_then(Value::as_str) != Some("c2s") {
            continue;
        }
        let answer = lines
            .get(i)
            .filter(|a| a.get("dir").and_then(Value::as_str) == Some("s2c"));
        let answer_line = if answer.is_some() { i + 1 } else { 0 };
        let t = req.get("t_ms").and_then(Value::as_u64).unwrap_or(0);
        let text = |v: &Value, p: &str| {
            v.pointer(p)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        };
        let mut path = text(req, "/http/path");
        // Job ids in paths become their labels.
        for (k, v) in names.clone() {
            if k == 'J' {
                let l = label(&mut names, 'J', &v);
                path = path.replace(&v, &l);
            }
        }
        let who = match text(req, "/http/principal").as_str() {
            "" | "a" => String::new(),
            p => format!("as key {p}: "),
        };
        let key = req
            .pointer("/http/idempotency_key")
            .and_then(Value::as_str)
            .map(|k| format!(" with Idempotency-Key {}", label(&mut names, 'K', k)))
            .unwrap_or_default();
        let wait = req
            .pointer("/body/job_ids")
            .and_then(Value::as_array)
            .map(|ids| {
                let ids: Vec<String> = ids
                    .iter()
                    .filter_map(Value::as_str)
                    .map(|id| label(&mut names, 'J', id))
                    .collect();
                format!(
                    " {} of [{}], timeout {} s",
                    text(req, "/body/wait_for"),
                    ids.join(", "),
                    req.pointer("/body/timeout_seconds")
                        .cloned()
                        .unwrap_or(Value::Null)
                )
            })
            .unwrap_or_default();
        let said = match answer {
            None => "no answer".to_string(),
            Some(a) => {
                let status = a
                    .pointer("/http/status")
                    .and_then(Value::as_u64)
                    .unwrap_or(0);
                let retry = a
                    .pointer("/http/retry_after")
                    .and_then(Value::as_str)
                    .map(|r| format!(", Retry-After {r}"))
                    .unwrap_or_default();
                let body = a.get("body").unwrap_or(&Value::Null);
                let what = if let Some(code) = body.pointer("/error/code").and_then(Value::as_str) {
                    format!(" {code}")
                } else if let Some(id) = body.pointer("/data/request_id").and_then(Value::as_str) {
                    let refunded = body
                        .pointer("/data/refunded")
                        .map(|r| format!(", refunded {r}"))
                        .unwrap_or_default();
                    format!(
                        " job {} \"{}\"{refunded}",
                        label(&mut names, 'J', id),
                        text(body, "/data/sume_status")
                    )
                } else if let Some(st) = body.pointer("/data/sume_status").and_then(Value::as_str) {
                    format!(" \"{st}\"")
                } else if let Some(jobs) = body.get("jobs").and_then(Value::as_array) {
                    let jobs: Vec<String> = jobs
                        .iter()
                        .map(|j| {
                            format!(
                                "{} \"{}\"",
                                label(&mut names, 'J', &text(j, "/id")),
                                text(j, "/status")
                            )
                        })
                        .collect();
                    format!(
                        " [{}], timed_out {}",
                        jobs.join(", "),
                        body.get("timed_out").cloned().unwrap_or(Value::Null)
                    )
                } else {
                    String::new()
                };
                format!("HTTP {status}{what}{retry}")
            }
        };
        n += 1;
        let after = if n > 1 {
            format!("after {} ms, ", t.saturating_sub(last_t))
        } else {
            String::new()
        };
        last_t = t;
        let _ = writeln!(
            s,
            "{n}. {after}{who}{} {path}{key}{wait} -> {said}",
            text(req, "/http/method")
        );
        for v in verdicts
            .iter()
            .filter(|v| v.line == answer_line || v.line == i)
        {
            let _ = writeln!(
                s,
                "   ^ {} {}: {}",
                if v.violation.level == longcall::Level::Must {
                    "MUST"
                } else {
                    "SHOULD"
                },
                v.violation.rule.code(),
                v.violation.detail
            );
        }
    }
    let _ = writeln!(
        s,
        "\nThe job log of this run is {}; `longcall check` on it reports the same finding.",
        file.file_name().and_then(|n| n.to_str()).unwrap_or("")
    );
    s
}
