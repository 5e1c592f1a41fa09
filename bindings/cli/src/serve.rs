//! `longcall serve-jobs`: the reference Sume Open API job server on loopback.
//!
//! Every decision is the core's ([`longcall::server::OpenApiServer`]); this host only moves
//! bytes and owns the clock: it reads a request, hands it over with the wall-clock time, writes
//! the answer back, and calls `handle_timeout` when the core asks. A `POST /jobs/wait` that asks
//! `timeout_seconds` is held while the core holds it (D-20): the host keeps the connection and
//! answers when `poll_held` hands the answer out. With `--log FILE` it writes every exchange as a
//! job log (`longcall check` reads it), each request beside its answer.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use longcall::server::{HttpAnswer, OpenApiConfig, OpenApiServer};
use longcall::wire::sume_open::HttpRequest;
use serde_json::{json, Value};

/// Arguments of `longcall serve-jobs`.
#[derive(clap::Args)]
pub struct ServeArgs {
    /// Port on 127.0.0.1 (0: any free port; the URL is printed).
    #[arg(long, default_value_t = 0)]
    port: u16,
    /// How long a job stays queued (cancelable) at least before generation starts.
    #[arg(long, default_value_t = 1000)]
    queue_wait_ms: u64,
    /// How long generation takes.
    #[arg(long, default_value_t = 1000)]
    generation_ms: u64,
    /// Queued jobs per API key at most; one more is 429 queue_full.
    #[arg(long, default_value_t = 20)]
    queue_limit: usize,
    /// Processing jobs per API key at most.
    #[arg(long, default_value_t = 2)]
    concurrency: usize,
    /// Credits each new API key starts with (one job costs one).
    #[arg(long, default_value_t = 100)]
    credits_per_key: u64,
    /// Write every exchange to this job log (JSON Lines).
    #[arg(long)]
    log: Option<PathBuf>,
    /// Stop after this many seconds (a bound for tests).
    #[arg(long)]
    max_seconds: Option<u64>,
}

/// The wall clock, in milliseconds since 1970.
pub(crate) fn epoch_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// Runs the server until killed (or `--max-seconds`).
pub fn run(args: &ServeArgs) -> u8 {
    let mut config = OpenApiConfig {
        queue_wait_ms: args.queue_wait_ms,
        generation_ms: args.generation_ms,
        credits_per_key: Some(args.credits_per_key),
        ..OpenApiConfig::default()
    };
    config.book.queue_limit_per_workspace = args.queue_limit;
    config.book.concurrency_per_workspace = args.concurrency;
    // Job ids are not guessable across runs: the host owns randomness, the clock is enough here.
    config.id_prefix = format!("job_{:x}_", epoch_ms() % 0xff_ffff);
    let mut core = match OpenApiServer::new(config) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("longcall serve-jobs: {e}");
            return 2;
        }
    };
    let http = match tiny_http::Server::http(("127.0.0.1", args.port)) {
        Ok(s) => s,
        Err(e) => {
            eprintln!(
                "longcall serve-jobs: cannot listen on 127.0.0.1:{}: {e}",
                args.port
            );
            return 2;
        }
    };
    let port = http.server_addr().to_ip().map_or(args.port, |a| a.port());
    let mut log = match &args.log {
        Some(p) => match File::create(p) {
            Ok(f) => Some(JobLog {
                out: BufWriter::new(f),
                keys: Vec::new(),
            }),
            Err(e) => {
                eprintln!("longcall serve-jobs: cannot write {}: {e}", p.display());
                return 2;
            }
        },
        None => None,
    };
    outln!("longcall serve-jobs: listening on http://127.0.0.1:{port}");
    let started = epoch_ms();
    let stop_at = args
        .max_seconds
        .map(|s| started.saturating_add(s.saturating_mul(1000)));
    // Held `jobs_wait` requests by token, with what arrived and when.
    let mut held: HashMap<u64, (tiny_http::Request, HttpRequest, u64)> = HashMap::new();
    let mut next_token: u64 = 0;
    loop {
        let now = epoch_ms();
        if stop_at.is_some_and(|t| now >= t) {
            return 0;
        }
        core.handle_timeout(now);
        release(&mut core, &mut held, &mut log, started);
        let wake = core.poll_timeout().unwrap_or(now + 1000).min(now + 1000);
        let wait = Duration::from_millis(wake.saturating_sub(now).max(1));
        let mut request = match http.recv_timeout(wait) {
            Ok(Some(r)) => r,
            Ok(None) => continue,
            Err(e) => {
                eprintln!("longcall serve-jobs: {e}");
                continue;
            }
        };
        let mut body = String::new();
        let body = match request.as_reader().read_to_string(&mut body) {
            Ok(0) | Err(_) => None,
            Ok(_) => Some(body),
        };
        let req = HttpRequest {
            method: request.method().as_str().to_string(),
            path: request.url().to_string(),
            headers: request
                .headers()
                .iter()
                .map(|h| (h.field.as_str().to_string(), h.value.as_str().to_string()))
                .collect(),
            body,
        };
        let now = epoch_ms();
        next_token = next_token.wrapping_add(1);
        if let Some(answer) = core.handle_held(now, next_token, &req) {
            send(request, &req, now, answer, &mut log, started);
        } else {
            held.insert(next_token, (request, req, now));
        }
        // A submit or a cancel may have released held waits.
        release(&mut core, &mut held, &mut log, started);
    }
}

/// Answers the held waits the core released.
fn release(
    core: &mut OpenApiServer,
    held: &mut HashMap<u64, (tiny_http::Request, HttpRequest, u64)>,
    log: &mut Option<JobLog>,
    started: u64,
) {
    while let Some((token, answer)) = core.poll_held() {
        if let Some((request, req, at)) = held.remove(&token) {
            send(request, &req, at, answer, log, started);
        }
    }
}

/// The job log: JSON Lines, and the API keys seen, so each request names its principal by the
/// order its key first came (`key1`, `key2`, ...) and the key itself is never written.
struct JobLog {
    out: BufWriter<File>,
    keys: Vec<String>,
}

impl JobLog {
    /// The principal label of `req` (E-52 judges each principal as a client of its own).
    fn principal(&mut self, req: &HttpRequest) -> Option<String> {
        let key = longcall::server::api_key(req)?;
        let n = match self.keys.iter().position(|k| *k == key) {
            Some(i) => i + 1,
            None => {
                self.keys.push(key);
                self.keys.len()
            }
        };
        Some(format!("key{n}"))
    }
}

/// Logs one exchange (the request at the time it arrived, beside its answer) and writes the
/// answer out.
fn send(
    request: tiny_http::Request,
    req: &HttpRequest,
    at: u64,
    answer: HttpAnswer,
    log: &mut Option<JobLog>,
    started: u64,
) {
    if let Some(w) = log.as_mut() {
        let t = at.saturating_sub(started);
        let t_answer = epoch_ms().saturating_sub(started);
        let parse = |b: &str| serde_json::from_str::<Value>(b).unwrap_or(Value::Null);
        let idem = req
            .headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("idempotency-key"))
            .map(|(_, v)| v.clone());
        let mut http = json!({"method": req.method, "path": req.path});
        if let Some(k) = idem {
            http["idempotency_key"] = Value::from(k);
        }
        if let Some(p) = w.principal(req) {
            http["principal"] = Value::from(p);
        }
        let c2s = json!({"t_ms": t, "dir": "c2s", "http": http,
            "body": req.body.as_deref().map_or(Value::Null, parse)});
        let mut http = json!({"status": answer.status});
        for (k, v) in &answer.headers {
            if k.eq_ignore_ascii_case("retry-after") {
                http["retry_after"] = Value::from(v.as_str());
            } else if k.eq_ignore_ascii_case("x-sume-request-id") {
                http["request_id"] = Value::from(v.as_str());
            }
        }
        let s2c =
            json!({"t_ms": t_answer, "dir": "s2c", "http": http, "body": parse(&answer.body)});
        let _ = writeln!(w.out, "{c2s}\n{s2c}");
        let _ = w.out.flush();
    }
    let mut response =
        tiny_http::Response::from_string(answer.body).with_status_code(answer.status);
    for (k, v) in &answer.headers {
        if let Ok(h) = tiny_http::Header::from_bytes(k.as_bytes(), v.as_bytes()) {
            response = response.with_header(h);
        }
    }
    if let Err(e) = request.respond(response) {
        eprintln!("longcall serve-jobs: answer not sent: {e}");
    }
}
