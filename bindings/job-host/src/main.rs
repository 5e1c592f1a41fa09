//! `longcall-job-host`: a job host that only moves bytes. It drives longcall's
//! [`CallEndpoint`] (one job end to end) and [`Wave`] (many jobs through `POST /jobs/wait`)
//! against a Sume-style job server over HTTP, such as `longcall serve-jobs`.
//!
//! Every decision is the core's: when to poll, when and with which key to re-send a submit
//! (E-11, R-5), what a cancel answer means (C-8), when a wave round goes out (B-6). The host
//! sends what the core emits, hands back what arrived with the wall-clock time, sleeps until the
//! core's wake-up time, and presses cancel when the scenario says the user did.
//!
//! ```sh
//! longcall serve-jobs --queue-limit 100 --concurrency 20     # prints its URL
//! longcall-job-host --base-url http://127.0.0.1:PORT           # every scenario
//! longcall-job-host --base-url http://127.0.0.1:PORT wave      # one
//! ```
//!
//! Each scenario prints one JSON line `{"scenario", "result", "detail", "figures": {"calls",
//! "polls", "settled_after_terminal_ms"}}`; the settle figure compares the host's clock at the
//! settle with the server's `terminal_at_ms` from `GET /_counters` (same machine, same clock).

use std::collections::BTreeMap;
use std::process::ExitCode;
use std::thread::sleep;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use longcall::admission::Advice;
use longcall::cancel::ButtonState;
use longcall::endpoint::{
    CallEndpoint, Config, Event, HttpAnswer, JobDialect, JobSubmit, Transmit,
};
use longcall::outcome::Outcome;
use longcall::tracker::{Failure, Output};
use longcall::view::JobView;
use longcall::wave::{Wave, WaveConfig, WaveInput, WaveOutput};
use longcall::wire::sume_open::{self, HttpRequest, Kind};
use longcall::Json;
use longcall::Status;
use serde_json::{json, Value};

/// Credits a new key starts with on the leg's server (`serve-jobs --credits-per-key`).
const START_CREDITS: u64 = 1_000;

/// The wall clock in ms: the core's `now`.
fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// A jitter seed from the operating system's randomness (std's hasher keys), so two hosts
/// started together do not poll together.
fn random_seed() -> u64 {
    use std::hash::BuildHasher;
    std::collections::hash_map::RandomState::new().hash_one(0u8)
}

fn sleep_until(at: u64) {
    let now = now_ms();
    if at > now {
        sleep(Duration::from_millis(at - now));
    }
}

/// One HTTP answer as it arrived.
struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

/// The wire: one API key, counting what it sends.
struct Net {
    agent: ureq::Agent,
    base: String,
    key: String,
    calls: u64,
    polls: u64,
}

impl Net {
    fn new(base: &str, key: &str) -> Net {
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            // Above the longest a server holds a `jobs_wait` (60 s).
            .timeout_global(Some(Duration::from_secs(75)))
            .build()
            .into();
        Net {
            agent,
            base: base.trim_end_matches('/').to_string(),
            key: key.to_string(),
            calls: 0,
            polls: 0,
        }
    }

    /// Sends one request (adding the API key); `Err` when no answer arrived.
    fn send(
        &mut self,
        method: &str,
        path: &str,
        headers: &[(String, String)],
        body: Option<&str>,
    ) -> Result<Answer, String> {
        self.calls += 1;
        if path.ends_with("/status") || path.ends_with("/wait") {
            self.polls += 1;
        }
        let url = format!("{}{}", self.base, path);
        let auth = format!("Bearer {}", self.key);
        let result = if method == "GET" {
            let mut r = self.agent.get(&url).header("Authorization", &auth);
            for (k, v) in headers {
                r = r.header(k, v);
            }
            r.call()
        } else {
            let mut r = self.agent.post(&url).header("Authorization", &auth);
            for (k, v) in headers {
                r = r.header(k, v);
            }
            match body {
                Some(b) => r.header("Content-Type", "application/json").send(b),
                None => r.send_empty(),
            }
        };
        let mut response = result.map_err(|e| e.to_string())?;
        let status = response.status().as_u16();
        let headers = response
            .headers()
            .iter()
            .filter_map(|(k, v)| Some((k.as_str().to_string(), v.to_str().ok()?.to_string())))
            .collect();
        let body = response
            .body_mut()
            .read_to_vec()
            .map_err(|e| e.to_string())?;
        Ok(Answer {
            status,
            headers,
            body,
        })
    }

    fn send_request(&mut self, r: &HttpRequest) -> Result<Answer, String> {
        self.send(&r.method, &r.path, &r.headers, r.body.as_deref())
    }

    fn counters(&mut self) -> Value {
        let url = format!("{}/_counters", self.base);
        self.agent
            .get(&url)
            .call()
            .ok()
            .and_then(|mut r| r.body_mut().read_to_vec().ok())
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or(Value::Null)
    }
}

/// What one call showed, start to settle.
#[derive(Default)]
struct Seen {
    job_id: Option<String>,
    outcome: Option<Outcome>,
    status: Option<Status>,
    statuses: Vec<Status>,
    buttons: Vec<ButtonState>,
    advice: Vec<Advice>,
    settled_at: Option<u64>,
    stopped: bool,
    submit_tries: u32,
    cancel_answer: Option<Value>,
    result: Option<Json>,
}

/// What the scenario does besides sending what the endpoint says.
#[derive(Default)]
struct Script {
    /// Press cancel this long after the job was created.
    press_after_ms: Option<u64>,
    /// Hand the first submit answer back as lost (the server did answer).
    lose_first_submit_answer: bool,
}

/// Runs one endpoint until it settles or stops. `on_queue_full` is the user's decision after a
/// `queue_full` (A-2: cancel queued jobs no longer wanted); the endpoint re-sends the submit
/// with the same key by itself.
fn drive(
    net: &mut Net,
    mut ep: CallEndpoint,
    script: &Script,
    on_queue_full: &mut dyn FnMut(&mut Net),
) -> Seen {
    let mut seen = Seen::default();
    let mut press_at: Option<u64> = None;
    let mut lost_one = false;
    loop {
        match ep.poll_event() {
            Event::Transmit(Transmit::Http {
                request_ref,
                method,
                path,
                headers,
                body,
            }) => {
                let is_submit =
                    ep.submit_key().is_some() && method == "POST" && !path.contains("/jobs/");
                if is_submit {
                    seen.submit_tries += 1;
                }
                let answer = net.send(&method, &path, &headers, body.as_deref());
                let now = now_ms();
                match answer {
                    Ok(_) if is_submit && script.lose_first_submit_answer && !lost_one => {
                        lost_one = true;
                        ep.handle_transport_failure(now, request_ref);
                    }
                    Ok(a) => {
                        if path.ends_with("/cancel") {
                            seen.cancel_answer = serde_json::from_slice(&a.body).ok();
                        }
                        let http = HttpAnswer {
                            status: a.status,
                            retry_after_ms: None,
                            body: &a.body,
                        };
                        ep.handle_http_headers(now, request_ref, http, &a.headers);
                    }
                    Err(_) => ep.handle_transport_failure(now, request_ref),
                }
                if seen.job_id.is_none() {
                    if let Some(h) = ep.tracker().handle() {
                        seen.job_id = Some(h.to_string());
                        press_at = script.press_after_ms.map(|d| now + d);
                    }
                }
            }
            Event::Status { status } => seen.statuses.push(status),
            Event::Button { state } => seen.buttons.push(state),
            Event::Admission { advice, .. } => {
                seen.advice.push(advice);
                if let Advice::QueueFull { .. } = advice {
                    on_queue_full(net);
                }
            }
            Event::Settled {
                outcome,
                status,
                result,
                ..
            } => {
                seen.result = result;
                seen.outcome = Some(outcome);
                seen.status = status;
                seen.settled_at = Some(now_ms());
            }
            Event::Stopped { .. } => seen.stopped = true,
            Event::WakeAt { at } => {
                if seen.outcome.is_some() || seen.stopped {
                    break;
                }
                match press_at {
                    Some(p) if p <= at => {
                        sleep_until(p);
                        press_at = None;
                        // A refusal (already too late, say) is the core's typed answer.
                        let _ = ep.cancel_pressed(now_ms());
                    }
                    _ => {
                        sleep_until(at);
                        ep.handle_timeout(now_ms());
                    }
                }
            }
            Event::Idle => break,
            _ => {}
        }
    }
    if seen.job_id.is_none() {
        seen.job_id = ep.tracker().handle().map(String::from);
    }
    seen
}

fn open_api_config() -> Config {
    Config {
        job_dialect: JobDialect::OpenApi,
        ..Config::with_seed(random_seed())
    }
}

fn submit(key: &str, model: &str) -> JobSubmit {
    JobSubmit {
        model: model.into(),
        kind: Kind::Image,
        // Two intents are two different requests (a log checker tells a resubmit from a new
        // intent by the body).
        arguments: json!({"prompt": format!("a harbour at dawn ({key})")}),
        idempotency_key: key.into(),
    }
}

/// `-` for nothing.
fn text(v: Option<&str>) -> &str {
    v.unwrap_or("-")
}

/// A scenario's line.
struct Line {
    scenario: &'static str,
    ok: bool,
    detail: String,
    figures: Value,
}

fn print(line: &Line) {
    let l = json!({
        "scenario": line.scenario,
        "result": if line.ok { "pass" } else { "fail" },
        "detail": line.detail,
        "figures": line.figures,
    });
    println!("{l}");
}

fn lag(counters: &Value, job: Option<&str>, settled_at: Option<u64>) -> Value {
    let terminal = job.and_then(|j| counters["jobs"][j]["terminal_at_ms"].as_u64());
    match (terminal, settled_at) {
        (Some(t), Some(s)) => json!(s.saturating_sub(t)),
        _ => Value::Null,
    }
}

fn figures(net: &Net, counters: &Value, seen: &Seen) -> Value {
    json!({
        "calls": net.calls,
        "polls": net.polls,
        "settled_after_terminal_ms": lag(counters, seen.job_id.as_deref(), seen.settled_at),
    })
}

fn one_call(base: &str, name: &str, scenario: &'static str, run: u64) -> Line {
    let key = format!("host-{name}-{run}");
    let mut net = Net::new(base, &key);
    let intent = format!("intent-{name}-{run}");
    let ep = match CallEndpoint::submit_job(submit(&intent, "demo-image"), open_api_config()) {
        Ok(ep) => ep,
        Err(e) => {
            return Line {
                scenario,
                ok: false,
                detail: e.to_string(),
                figures: Value::Null,
            }
        }
    };
    let script = match scenario {
        // Well inside the queue wait: the job is still queued.
        "cancel while queued" => Script {
            press_after_ms: Some(100),
            ..Script::default()
        },
        // After the queue wait (1 s on the leg's server), within the generation.
        "cancel after start" => Script {
            press_after_ms: Some(1_400),
            ..Script::default()
        },
        "lost submit answer" => Script {
            lose_first_submit_answer: true,
            ..Script::default()
        },
        _ => Script::default(),
    };
    let seen = drive(&mut net, ep, &script, &mut |_| {});
    let counters = net.counters();
    let job = seen.job_id.clone().unwrap_or_default();
    let per_key = counters["jobs_per_idempotency_key"][&intent].as_u64();
    let credits = counters["credits"][&key].as_u64();
    let (ok, detail) = match scenario {
        "completed" => {
            let url = seen.result.as_deref().and_then(sume_open::artifact_url);
            (
                seen.outcome == Some(Outcome::Succeeded)
                    && seen.status == Some(Status::Completed)
                    && url.is_some(),
                format!(
                    "{job}: {} ({}), artifact {}",
                    text(seen.outcome.map(Outcome::as_str)),
                    text(seen.status.map(Status::as_str)),
                    text(url)
                ),
            )
        }
        "cancel while queued" => (
            seen.outcome == Some(Outcome::Cancelled)
                && seen.status == Some(Status::Canceled)
                && seen
                    .cancel_answer
                    .as_ref()
                    .and_then(|a| a["data"]["refunded"].as_bool())
                    == Some(true)
                && credits == Some(START_CREDITS),
            format!(
                "{job}: {}, refunded {}, credits {} of {START_CREDITS}",
                text(seen.outcome.map(Outcome::as_str)),
                seen.cancel_answer
                    .as_ref()
                    .map_or(Value::Null, |a| a["data"]["refunded"].clone()),
                credits.map_or("-".into(), |c| c.to_string())
            ),
        ),
        "cancel after start" => (
            seen.buttons.contains(&ButtonState::TooLate)
                && seen.outcome == Some(Outcome::Succeeded)
                && !seen.statuses.contains(&Status::Canceled)
                && !seen.buttons.contains(&ButtonState::Cancelled),
            format!(
                "{job}: cancel answered {}, button {}, then {} (never shown cancelled)",
                seen.cancel_answer
                    .as_ref()
                    .map_or(Value::Null, |a| a["error"]["code"].clone()),
                seen.buttons
                    .iter()
                    .map(|b| b.as_str())
                    .collect::<Vec<_>>()
                    .join(" -> "),
                text(seen.outcome.map(Outcome::as_str))
            ),
        ),
        "lost submit answer" => (
            seen.outcome == Some(Outcome::Succeeded)
                && per_key == Some(1)
                && seen.submit_tries == 2,
            format!(
                "{job}: submit sent {} times with key {intent}, server jobs for the key: {}, {}",
                seen.submit_tries,
                per_key.map_or("-".into(), |n| n.to_string()),
                text(seen.outcome.map(Outcome::as_str))
            ),
        ),
        _ => (false, "unknown scenario".into()),
    };
    Line {
        scenario,
        ok,
        detail,
        figures: figures(&net, &counters, &seen),
    }
}

/// A-2: the queue is full; the user cancels the queued jobs no longer wanted, and the endpoint
/// sends its submit again with the same key once `Retry-After` passed.
fn queue_full(base: &str, run: u64, queue_limit: usize) -> Line {
    let scenario = "queue_full";
    let key = format!("host-queue-full-{run}");
    let mut net = Net::new(base, &key);
    let mut fillers = Vec::new();
    for i in 0..queue_limit {
        let r = sume_open::submit_request(
            Kind::Image,
            "demo-image",
            &json!({"prompt": format!("filler {i}")}),
            &format!("filler-{run}-{i}"),
        );
        let id = r
            .ok()
            .and_then(|r| net.send_request(&r).ok())
            .and_then(|a| serde_json::from_slice::<Value>(&a.body).ok())
            .and_then(|b| sume_open::read_submit(&b).ok())
            .map(|j| j.id);
        fillers.extend(id);
    }
    let intent = format!("intent-queue-full-{run}");
    let ep = match CallEndpoint::submit_job(submit(&intent, "demo-image"), open_api_config()) {
        Ok(ep) => ep,
        Err(e) => {
            return Line {
                scenario,
                ok: false,
                detail: e.to_string(),
                figures: Value::Null,
            }
        }
    };
    let mut canceled = 0;
    let seen = drive(&mut net, ep, &Script::default(), &mut |net| {
        for id in fillers.drain(..) {
            if let Ok(r) = sume_open::cancel_request(&id) {
                if net.send_request(&r).is_ok_and(|a| a.status == 200) {
                    canceled += 1;
                }
            }
        }
    });
    let counters = net.counters();
    let per_key = counters["jobs_per_idempotency_key"][&intent].as_u64();
    let full = seen
        .advice
        .iter()
        .any(|a| matches!(a, Advice::QueueFull { .. }));
    Line {
        scenario,
        ok: full && per_key == Some(1) && seen.outcome == Some(Outcome::Succeeded),
        detail: format!(
            "queue_full after {queue_limit} queued, {canceled} queued jobs canceled, submit sent {} times with key {intent}, server jobs for the key: {}, {}",
            seen.submit_tries,
            per_key.map_or("-".into(), |n| n.to_string()),
            text(seen.outcome.map(Outcome::as_str))
        ),
        figures: figures(&net, &counters, &seen),
    }
}

/// 100 jobs submitted through the MCP job tools and watched together through `POST /jobs/wait`
/// with the core's [`Wave`] (rounds of at most 20 ids, earliest deadline first).
fn wave(base: &str, run: u64, size: usize) -> Line {
    let scenario = "wave of 100 jobs";
    let key = format!("host-wave-{run}");
    let mut net = Net::new(base, &key);
    let mut w = match Wave::new(WaveConfig {
        seed: random_seed(),
        ..WaveConfig::default()
    }) {
        Ok(w) => w,
        Err(e) => {
            return Line {
                scenario,
                ok: false,
                detail: e.to_string(),
                figures: Value::Null,
            }
        }
    };
    let deadline = now_ms() + 120_000;
    let mut added = 0;
    for i in 0..size {
        let Ok(mut ep) = CallEndpoint::submit_job(
            submit(&format!("intent-wave-{run}-{i}"), "demo-image"),
            Config::with_seed(random_seed()),
        ) else {
            continue;
        };
        // Only the submit: once created, the wave owns the watching.
        while let Event::Transmit(Transmit::Http {
            request_ref,
            method,
            path,
            headers,
            body,
        }) = ep.poll_event()
        {
            if ep.tracker().handle().is_some() {
                break;
            }
            let now = now_ms();
            match net.send(&method, &path, &headers, body.as_deref()) {
                Ok(a) => ep.handle_http_headers(
                    now,
                    request_ref,
                    HttpAnswer {
                        status: a.status,
                        retry_after_ms: None,
                        body: &a.body,
                    },
                    &a.headers,
                ),
                Err(_) => ep.handle_transport_failure(now, request_ref),
            }
        }
        let (Some(id), Some(status)) = (ep.tracker().handle(), ep.tracker().status()) else {
            continue;
        };
        let job = JobView {
            id: id.into(),
            status,
            result: None,
            error: None,
        };
        if w.handle_input(
            now_ms(),
            WaveInput::AddJob {
                job,
                deadline: Some(deadline),
            },
        )
        .is_ok()
        {
            added += 1;
        }
    }
    let submits = net.calls;
    net.polls = 0;
    let mut settled: BTreeMap<String, (u64, Outcome)> = BTreeMap::new();
    let mut satisfied = false;
    let mut largest = 0;
    // This host sends one request at a time, and a held `jobs_wait` blocks it: every output
    // already queued (the settles of the last answer among them) is drained before the next
    // call goes out, so a settle is seen when its answer arrived.
    let mut waits = std::collections::VecDeque::new();
    loop {
        let wake = loop {
            match w.poll_output() {
                WaveOutput::Wait { call_id, call } => waits.push_back((call_id, call)),
                WaveOutput::Job {
                    id,
                    output: Output::Settled { outcome, .. },
                } => {
                    settled.insert(id, (now_ms(), outcome));
                }
                WaveOutput::Satisfied { .. } => satisfied = true,
                WaveOutput::WakeAt { at } => break Some(at),
                WaveOutput::Idle => break None,
                _ => {}
            }
        };
        if let Some((call_id, call)) = waits.pop_front() {
            largest = largest.max(call.job_ids.len());
            // The call is the body as the wire spells it; the answer goes to the wave as it
            // arrived, which reads it (B-11).
            let body = serde_json::to_string(&call).unwrap_or_default();
            let answer = net.send("POST", "/jobs/wait", &[], Some(&body));
            let now = now_ms();
            let _ = match answer {
                Ok(a) => w.handle_wait_http(
                    now,
                    call_id,
                    HttpAnswer {
                        status: a.status,
                        retry_after_ms: None,
                        body: &a.body,
                    },
                    &a.headers,
                ),
                Err(_) => w.handle_input(
                    now,
                    WaveInput::WaitFailed {
                        call_id,
                        failure: Failure::Transport,
                    },
                ),
            };
            continue;
        }
        match wake {
            Some(at) if !satisfied => {
                sleep_until(at);
                w.handle_timeout(now_ms());
            }
            _ => break,
        }
    }
    let counters = net.counters();
    let mut lags: Vec<u64> = settled
        .iter()
        .filter_map(|(id, (at, _))| {
            counters["jobs"][id]["terminal_at_ms"]
                .as_u64()
                .map(|t| at.saturating_sub(t))
        })
        .collect();
    lags.sort_unstable();
    let succeeded = settled
        .values()
        .filter(|(_, o)| *o == Outcome::Succeeded)
        .count();
    let median = lags.get(lags.len() / 2).copied();
    let max = lags.last().copied();
    Line {
        scenario,
        ok: satisfied && added == size && succeeded == size && largest <= 20,
        detail: format!(
            "{added} jobs added, {succeeded} completed, {} jobs_wait calls in {} rounds (at most {largest} ids each); settled after terminal: median {} ms, max {} ms",
            net.polls,
            w.rounds_sent(),
            median.map_or("-".into(), |n| n.to_string()),
            max.map_or("-".into(), |n| n.to_string())
        ),
        figures: json!({
            "calls": net.calls,
            "submits": submits,
            "polls": net.polls,
            "settled_after_terminal_ms": max,
            "settled_after_terminal_median_ms": median,
        }),
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut base = None;
    let mut only = Vec::new();
    let mut queue_limit = 100;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--base-url" => base = it.next().cloned(),
            "--queue-limit" => queue_limit = it.next().and_then(|v| v.parse().ok()).unwrap_or(100),
            "--help" | "-h" => {
                println!("usage: longcall-job-host --base-url URL [--queue-limit N] [completed|cancel-queued|cancel-started|lost-submit|queue-full|wave]...");
                return ExitCode::SUCCESS;
            }
            other => only.push(other.to_string()),
        }
    }
    let Some(base) = base else {
        eprintln!("longcall-job-host: --base-url is required");
        return ExitCode::from(2);
    };
    // Keys differ per run, so a server that lives on sees fresh owners.
    let run = now_ms() % 1_000_000;
    let wanted = |name: &str| only.is_empty() || only.iter().any(|o| o == name);
    let mut lines = Vec::new();
    for (name, scenario) in [
        ("completed", "completed"),
        ("cancel-queued", "cancel while queued"),
        ("cancel-started", "cancel after start"),
        ("lost-submit", "lost submit answer"),
    ] {
        if wanted(name) {
            let l = one_call(&base, name, scenario, run);
            print(&l);
            lines.push(l.ok);
        }
    }
    if wanted("queue-full") {
        let l = queue_full(&base, run, queue_limit);
        print(&l);
        lines.push(l.ok);
    }
    if wanted("wave") {
        let l = wave(&base, run, 100);
        print(&l);
        lines.push(l.ok);
    }
    if lines.iter().all(|ok| *ok) {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn each_draw_is_its_own_seed() {
        assert_ne!(super::random_seed(), super::random_seed());
    }
}
