//! The reference job server speaking the Sume Open API: HTTP requests as data in, HTTP answers
//! as data out, over a [`JobBook`]. A host only moves bytes and owns the clock: it hands every
//! request to [`OpenApiServer::handle`] with `now`, and calls [`OpenApiServer::handle_timeout`]
//! at [`OpenApiServer::poll_timeout`].
//!
//! Rules, written once (the client's side is [`crate::wire::sume_open`], D-2 to D-12):
//!
//! * **D-13 Keys own jobs.** `Authorization: Bearer <key>` names the owner (the key is its own
//!   workspace and member). No key is `401 unauthorized`. Another key's job and an unknown id
//!   answer the same `404 not_found`, body and all.
//! * **D-14 Queue-first.** A valid submit is `200` with `data.request_id` and `queued`. The
//!   model must be in the catalog and submitted on its kind's route (else `400
//!   invalid_request` with `details.errors`). A full queue is `429 queue_full` with
//!   `Retry-After` and `retryable: true`. The `Idempotency-Key` header replays the original job;
//!   [`Counters::jobs_per_idempotency_key`] shows one job per key however often it is sent.
//! * **D-15 Generation starts after the queue wait.** A job stays `queued` (cancelable) for at
//!   least [`OpenApiConfig::queue_wait_ms`], then starts FIFO when its key has a free slot, and
//!   ends [`OpenApiConfig::generation_ms`] later as its catalog model says: `completed` with one
//!   artifact URL, `nsfw`, `failed` with `public_reason: content_policy_rejected`, or `failed`.
//! * **D-16 Cancel refunds.** A queued job cancels (`200`, `data.refunded: true`, the credit
//!   back); a started one is `409 job_generation_already_started`, an ended one `409
//!   job_not_cancelable`, both `retryable: false`.
//! * **D-17 Scripted failures.** `POST /_script {"answers": [{"status": 503}, {"status": 429,
//!   "retry_after_s": 1}, {"status": 503, "retryable": false}]}` queues answers for the key's
//!   next requests (any route but the `/_` ones): each is an error envelope with `retryable`
//!   (default `true`), a 429 with its `Retry-After`. `GET /_counters` shows what happened.
//! * **D-18 Every answer** carries `x-sume-request-id`, and every error envelope the same id
//!   as `error.request_id` (and beside `error`, for the MCP job tools' readers).
//! * **D-19 The MCP job tools over HTTP** reach the same jobs ([`crate::wire::sume`] reads
//!   them): `POST /jobs {model, ..., idempotency_key}` → `202 {object, job}`; `GET /jobs/{id}`
//!   → the job with its result; `POST /jobs/{id}/cancel {idempotency_key}` → the canceled job
//!   or the same 409s; `POST /jobs/wait {job_ids, wait_for, include_results}` → `{jobs,
//!   timed_out}` answered at once by [`OpenApiServer::handle`] (`timed_out: true` while the
//!   condition does not hold). An id the caller may not see makes a wait `404 not_found`.
//! * **D-20 Held waits.** Through [`OpenApiServer::handle_held`] a `jobs_wait` whose condition
//!   does not hold yet and that asks `timeout_seconds` > 0 is held: it answers as soon as the
//!   condition holds (a job ends or is canceled) or at its timeout (at most
//!   [`MAX_HOLD_SECONDS`]) with the snapshot then, `timed_out` true only at the timeout. The
//!   host drains held answers with [`OpenApiServer::poll_held`] after every `handle*` call.

use alloc::boxed::Box;
use alloc::collections::{BTreeMap, VecDeque};
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::{JobBook, JobBookConfig};
use crate::error::Error;
use crate::ownership::Owner;
use crate::status::Status;
use crate::view::ApiError;
use crate::wire::sume_open::{
    self, HttpRequest, Kind, CONTENT_POLICY_REJECTED, IDEMPOTENCY_KEY_HEADER, REQUEST_ID_HEADER,
};
use crate::Json;

/// How a catalog model's jobs end (D-15).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Ending {
    /// `completed`, with one artifact URL.
    Completed,
    /// `nsfw`.
    Nsfw,
    /// `failed` with `job.error.public_reason: content_policy_rejected`.
    ContentPolicyRejected,
    /// `failed` with a plain error.
    Failed,
}

crate::tagged::unit_enum!(
    Ending,
    "enum Ending",
    [
        (Ending::Completed, "completed"),
        (Ending::Nsfw, "nsfw"),
        (Ending::ContentPolicyRejected, "content_policy_rejected"),
        (Ending::Failed, "failed"),
    ]
);

/// One model of the reference catalog.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CatalogModel {
    /// The model name.
    pub name: String,
    /// Its kind (decides the submit route).
    pub kind: Kind,
    /// How its jobs end.
    pub ending: Ending,
}

/// Configuration of an [`OpenApiServer`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpenApiConfig {
    /// The job book's limits (slots and queue per key).
    pub book: JobBookConfig,
    /// How long a job stays queued at least before generation may start.
    pub queue_wait_ms: u64,
    /// How long generation takes.
    pub generation_ms: u64,
    /// The credit balance each new key starts with (`None`: unlimited).
    pub credits_per_key: Option<u64>,
    /// `Retry-After` seconds of a `queue_full` answer.
    pub queue_full_retry_after_s: u64,
    /// Prefix of job ids (a host makes it unguessable).
    pub id_prefix: String,
    /// The models.
    pub catalog: Vec<CatalogModel>,
}

fn model(name: &str, kind: Kind, ending: Ending) -> CatalogModel {
    CatalogModel {
        name: name.into(),
        kind,
        ending,
    }
}

impl Default for OpenApiConfig {
    /// 1 s queue wait, 1 s generation, 100 credits per key, and the demo catalog:
    /// `demo-image` and `demo-video` complete, `demo-nsfw` ends `nsfw`, `demo-rejected` fails
    /// with `content_policy_rejected`, `demo-fail` fails.
    fn default() -> Self {
        OpenApiConfig {
            book: JobBookConfig::default(),
            queue_wait_ms: 1_000,
            generation_ms: 1_000,
            credits_per_key: Some(100),
            queue_full_retry_after_s: 1,
            id_prefix: "job_".into(),
            catalog: alloc::vec![
                model("demo-image", Kind::Image, Ending::Completed),
                model("demo-video", Kind::Video, Ending::Completed),
                model("demo-nsfw", Kind::Image, Ending::Nsfw),
                model("demo-rejected", Kind::Image, Ending::ContentPolicyRejected),
                model("demo-fail", Kind::Image, Ending::Failed),
            ],
        }
    }
}

/// An HTTP answer as data: the host writes it out unchanged.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HttpAnswer {
    /// The HTTP status.
    pub status: u16,
    /// Headers, in order (`content-type`, `x-sume-request-id`, `retry-after`).
    pub headers: Vec<(String, String)>,
    /// The JSON body.
    pub body: String,
}

/// The longest a `jobs_wait` is held (D-20), whatever `timeout_seconds` it asks.
pub const MAX_HOLD_SECONDS: u64 = 60;

/// A `jobs_wait` held until its condition or its timeout (D-20).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Held {
    token: u64,
    request: HttpRequest,
    until: u64,
}

/// One job as the counters show it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobCounters {
    /// The owning key.
    pub key: String,
    /// The model.
    pub model: String,
    /// The status now (Open API spelling).
    pub status: String,
    /// Status requests answered for it.
    pub polls: u64,
    /// When generation started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at_ms: Option<u64>,
    /// When it reached its terminal status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terminal_at_ms: Option<u64>,
}

/// What the server has seen (`GET /_counters`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counters {
    /// Every request but the debug routes (`/_script`, `/_counters`), scripted answers included.
    pub requests: u64,
    /// Submit requests (replays included).
    pub submits: u64,
    /// Jobs created.
    pub jobs_created: u64,
    /// Jobs created per `Idempotency-Key` (a replayed key does not count again).
    pub jobs_per_idempotency_key: BTreeMap<String, u64>,
    /// Status requests.
    pub polls: u64,
    /// Result requests.
    pub results: u64,
    /// Cancel requests.
    pub cancels: u64,
    /// Scripted answers sent.
    pub scripted: u64,
    /// Credit balance per key.
    pub credits: BTreeMap<String, u64>,
    /// Per job.
    pub jobs: BTreeMap<String, JobCounters>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Scripted {
    status: u16,
    retry_after_s: Option<u64>,
    retryable: bool,
}

/// The reference Open API server (rules D-13 to D-19 in the module docs).
///
/// ```
/// use longcall::server::{OpenApiConfig, OpenApiServer};
/// use longcall::wire::sume_open::{self, HttpRequest, Kind};
///
/// let mut server = OpenApiServer::new(OpenApiConfig::default()).unwrap();
/// let auth = |mut r: HttpRequest| { r.headers.push(("Authorization".into(), "Bearer k1".into())); r };
/// let submit = sume_open::submit_request(Kind::Image, "demo-image", &serde_json::json!({}), "intent-1").unwrap();
/// let a = server.handle(0, &auth(submit));
/// let job = sume_open::read_submit(&serde_json::from_str(&a.body).unwrap()).unwrap();
/// server.handle_timeout(1_000); // the queue wait ends: generation starts
/// server.handle_timeout(2_000); // generation ends
/// let a = server.handle(2_000, &auth(sume_open::status_request(&job.id).unwrap()));
/// let polled = sume_open::read_status(&job.id, &serde_json::from_str(&a.body).unwrap()).unwrap();
/// assert_eq!(polled.status, longcall::Status::Completed);
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OpenApiServer {
    config: OpenApiConfig,
    book: JobBook,
    next_job: u64,
    next_request: u64,
    last_now: u64,
    /// Job id → (model index, queued at, generation ends at).
    meta: BTreeMap<String, (usize, u64, Option<u64>)>,
    scripts: BTreeMap<String, VecDeque<Scripted>>,
    counters: Counters,
    #[serde(default)]
    held: Vec<Held>,
    #[serde(default)]
    released: VecDeque<(u64, HttpAnswer)>,
}

/// An error answer: the envelope, its `retryable` flag, its `Retry-After` seconds.
type Refusal = Box<(ApiError, bool, Option<u64>)>;

type Routed = Result<(u16, Value), Refusal>;

fn permanent(e: ApiError) -> Refusal {
    Box::new((e, false, None))
}

fn error(status: u16, code: &str, message: &str, details: Option<Value>) -> ApiError {
    ApiError {
        http_status: status,
        code: code.into(),
        message: message.into(),
        details: details.map(Json::from),
        request_id: None,
    }
}

fn field_error(path: &str, message: &str) -> ApiError {
    error(
        400,
        "invalid_request",
        "invalid request",
        Some(json!({"errors": [{"path": path, "message": message}]})),
    )
}

fn json_body(req: &HttpRequest) -> Result<Value, Refusal> {
    req.body
        .as_deref()
        .and_then(|b| serde_json::from_slice(b.as_bytes()).ok())
        .filter(Value::is_object)
        .ok_or_else(|| permanent(field_error("body", "a JSON object")))
}

/// The API key of `Authorization: Bearer <key>`: the owner of what the request makes or names
/// (D-13). A host that records exchanges labels their principal by it.
#[must_use]
pub fn api_key(req: &HttpRequest) -> Option<String> {
    req.headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("authorization"))
        .and_then(|(_, v)| v.strip_prefix("Bearer "))
        .map(str::trim)
        .filter(|k| !k.is_empty())
        .map(String::from)
}

fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

impl OpenApiServer {
    /// A new server. Errors: [`Error::InvalidConfig`] for a bad book configuration.
    pub fn new(config: OpenApiConfig) -> Result<OpenApiServer, Error> {
        Ok(OpenApiServer {
            book: JobBook::new(config.book.clone())?,
            config,
            next_job: 0,
            next_request: 0,
            last_now: 0,
            meta: BTreeMap::new(),
            scripts: BTreeMap::new(),
            counters: Counters::default(),
            held: Vec::new(),
            released: VecDeque::new(),
        })
    }

    /// What the server has seen so far.
    #[must_use]
    pub fn counters(&self) -> &Counters {
        &self.counters
    }

    /// When to call [`OpenApiServer::handle_timeout`] next: the earliest end of a queue wait
    /// still ahead or of a generation; `None` when nothing is pending. Call again after every
    /// `handle` and `handle_timeout`.
    #[must_use]
    pub fn poll_timeout(&self) -> Option<u64> {
        let wait = self.config.queue_wait_ms;
        let held = self.held.iter().map(|h| h.until).min();
        self.meta
            .iter()
            .filter_map(|(id, (_, queued_at, ends))| {
                let status = self.book.peek(id).map(|(_, v)| v.status)?;
                match status {
                    Status::Queued => {
                        Some(queued_at.saturating_add(wait)).filter(|t| *t > self.last_now)
                    }
                    Status::Processing => *ends,
                    _ => None,
                }
            })
            .chain(held)
            .min()
    }

    /// Moves time to `now`: starts jobs whose queue wait ended (when a slot is free) and ends
    /// generations that are due. Call it at [`OpenApiServer::poll_timeout`]; `handle` calls it too.
    pub fn handle_timeout(&mut self, now: u64) {
        let now = now.max(self.last_now);
        self.last_now = now;
        loop {
            let due: Vec<String> = self
                .meta
                .iter()
                .filter(|(_, (_, _, ends))| ends.is_some_and(|e| e <= now))
                .map(|(id, _)| id.clone())
                .filter(|id| {
                    self.book
                        .peek(id)
                        .is_some_and(|(_, v)| v.status == Status::Processing)
                })
                .collect();
            for id in &due {
                self.finish(now, id);
            }
            let started = self.book.dispatch_waited(now, self.config.queue_wait_ms);
            for id in &started {
                let ends = now.saturating_add(self.config.generation_ms);
                if let Some(m) = self.meta.get_mut(id) {
                    m.2 = Some(ends);
                }
                if let Some(c) = self.counters.jobs.get_mut(id) {
                    c.started_at_ms = Some(now);
                    c.status = "processing".into();
                }
            }
            if started.is_empty() && due.is_empty() {
                break;
            }
        }
        self.release_held(now);
    }

    /// D-20: answers the held waits whose condition holds now or whose timeout passed.
    fn release_held(&mut self, now: u64) {
        let mut i = 0;
        while let Some(h) = self.held.get(i) {
            let request = h.request.clone();
            let (token, until) = (h.token, h.until);
            let owner = api_key(&request).map(|k| Owner {
                workspace: k.clone(),
                member: k,
            });
            let routed = match &owner {
                Some(o) => self.tools_wait(now, o, &request),
                None => Err(permanent(error(401, "unauthorized", "no key", None))),
            };
            let holds =
                matches!(&routed, Ok((_, b)) if b.get("timed_out") == Some(&Value::Bool(false)));
            if holds || routed.is_err() || now >= until {
                self.held.remove(i);
                let answer = self.respond(routed);
                self.released.push_back((token, answer));
            } else {
                i += 1;
            }
        }
    }

    /// Like [`OpenApiServer::handle`], but a `POST /jobs/wait` whose condition does not hold yet
    /// and that asks `timeout_seconds` > 0 is held (D-20): `None` now, and its answer comes out
    /// of [`OpenApiServer::poll_held`] with `token` once the condition holds or the timeout
    /// passed. Call [`OpenApiServer::handle_timeout`] at [`OpenApiServer::poll_timeout`] as
    /// usual; it releases held waits too.
    ///
    /// ```
    /// use longcall::server::{OpenApiConfig, OpenApiServer};
    /// use longcall::wire::sume_open::HttpRequest;
    ///
    /// let mut server = OpenApiServer::new(OpenApiConfig::default()).unwrap();
    /// let post = |path: &str, body: String| HttpRequest { method: "POST".into(), path: path.into(),
    ///     headers: vec![("Authorization".into(), "Bearer k1".into())], body: Some(body) };
    /// let a = server.handle(0, &post("/jobs", r#"{"model":"demo-image","idempotency_key":"i1"}"#.into()));
    /// let id = serde_json::from_str::<serde_json::Value>(&a.body).unwrap()["job"]["id"].as_str().unwrap().to_string();
    /// let wait = format!(r#"{{"job_ids":["{id}"],"wait_for":"all","timeout_seconds":30}}"#);
    /// assert!(server.handle_held(0, 7, &post("/jobs/wait", wait)).is_none()); // held
    /// while let Some(at) = server.poll_timeout() {
    ///     server.handle_timeout(at);
    ///     if let Some((token, answer)) = server.poll_held() {
    ///         assert_eq!(token, 7);
    ///         assert!(answer.body.contains(r#""timed_out":false"#));
    ///         assert_eq!(at, 2_000); // answered when the job ended
    ///         break;
    ///     }
    /// }
    /// ```
    pub fn handle_held(
        &mut self,
        now: u64,
        token: u64,
        request: &HttpRequest,
    ) -> Option<HttpAnswer> {
        let answer = self.handle(now, request);
        let path = request.path.split('?').next().unwrap_or_default();
        if request.method != "POST"
            || path.trim_end_matches('/') != "/jobs/wait"
            || answer.status != 200
        {
            return Some(answer);
        }
        let body: Value = serde_json::from_slice(answer.body.as_bytes()).unwrap_or(Value::Null);
        let timeout_s = request
            .body
            .as_deref()
            .and_then(|b| serde_json::from_slice::<Value>(b.as_bytes()).ok())
            .and_then(|b| b.get("timeout_seconds").and_then(Value::as_u64))
            .unwrap_or(0)
            .min(MAX_HOLD_SECONDS);
        if body.get("timed_out") != Some(&Value::Bool(true)) || timeout_s == 0 {
            return Some(answer);
        }
        self.held.push(Held {
            token,
            request: request.clone(),
            until: now.saturating_add(timeout_s.saturating_mul(1000)),
        });
        None
    }

    /// The next held wait that is answered now, with its token (D-20). Drain after every
    /// `handle*` call until `None`.
    #[must_use]
    pub fn poll_held(&mut self) -> Option<(u64, HttpAnswer)> {
        self.released.pop_front()
    }

    fn finish(&mut self, now: u64, id: &str) {
        let ending = self
            .meta
            .get(id)
            .and_then(|(m, _, _)| self.config.catalog.get(*m))
            .map_or(Ending::Failed, |m| m.ending);
        match ending {
            Ending::Completed => {
                let url = format!("https://artifacts.invalid/{id}/0.png");
                self.book.complete(
                    now,
                    id,
                    json!({"artifacts": [{"url": url, "content_type": "image/png"}]}),
                )
            }
            Ending::Nsfw => self.book.fail(
                now,
                id,
                json!({"code": "content_policy", "public_reason": "nsfw"}),
            ),
            Ending::ContentPolicyRejected => self.book.fail(
                now,
                id,
                json!({"code": "generation_failed", "public_reason": CONTENT_POLICY_REJECTED}),
            ),
            Ending::Failed => self.book.fail(
                now,
                id,
                json!({"code": "generation_failed", "public_reason": "provider_error"}),
            ),
        };
        self.note_status(now, id);
    }

    fn note_status(&mut self, now: u64, id: &str) {
        let Some((_, view)) = self.book.peek(id) else {
            return;
        };
        let nsfw = self
            .meta
            .get(id)
            .and_then(|(m, _, _)| self.config.catalog.get(*m))
            .is_some_and(|m| m.ending == Ending::Nsfw);
        if let Some(c) = self.counters.jobs.get_mut(id) {
            c.status = if nsfw && view.status == Status::Failed {
                "nsfw".into()
            } else {
                view.status.as_str().into()
            };
            if view.status.is_terminal() && c.terminal_at_ms.is_none() {
                c.terminal_at_ms = Some(now);
            }
        }
        let key = self
            .book
            .peek(id)
            .map(|(o, _)| o.workspace)
            .unwrap_or_default();
        if let Some(credits) = self.book.credits(&key) {
            self.counters.credits.insert(key, credits);
        }
    }

    /// Answers one request at `now` (milliseconds, the host's clock).
    pub fn handle(&mut self, now: u64, request: &HttpRequest) -> HttpAnswer {
        self.handle_timeout(now);
        if !request.path.starts_with("/_") {
            self.counters.requests = self.counters.requests.saturating_add(1);
        }
        let routed = self.route(now, request);
        self.respond(routed)
    }

    /// An answer as data, with its request id (D-18).
    fn respond(&mut self, routed: Routed) -> HttpAnswer {
        self.next_request = self.next_request.saturating_add(1);
        let request_id = format!("req_{}", self.next_request);
        let (status, body, retry_after) = match routed {
            Ok((status, body)) => (status, body, None),
            Err(refusal) => {
                let (mut e, retryable, retry_after) = *refusal;
                e.request_id = Some(request_id.clone());
                (
                    e.http_status,
                    sume_open::error_body(&e, retryable),
                    retry_after,
                )
            }
        };
        let mut headers = alloc::vec![
            ("content-type".to_string(), "application/json".to_string()),
            (REQUEST_ID_HEADER.to_string(), request_id),
        ];
        if let Some(s) = retry_after {
            headers.push(("retry-after".into(), s.to_string()));
        }
        HttpAnswer {
            status,
            headers,
            body: crate::json_text(&body),
        }
    }

    fn route(&mut self, now: u64, req: &HttpRequest) -> Routed {
        let path = req.path.split('?').next().unwrap_or_default();
        if req.method == "GET" && path == "/_counters" {
            return serde_json::to_value(&self.counters)
                .map(|v| (200, v))
                .map_err(|_| permanent(error(500, "internal_error", "counters", None)));
        }
        let key = api_key(req)
            .ok_or_else(|| {
                permanent(error(
                    401,
                    "unauthorized",
                    "send Authorization: Bearer <api key>",
                    None,
                ))
            })?
            .to_string();
        if let Some(balance) = self.config.credits_per_key {
            if !self.counters.credits.contains_key(&key) {
                self.book.set_credits(&key, Some(balance));
                self.counters.credits.insert(key.clone(), balance);
            }
        }
        if req.method == "POST" && path == "/_script" {
            return self.script(&key, req);
        }
        let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
        // Counted before a scripted answer, so a retried request counts every try.
        let c = &mut self.counters;
        match (req.method.as_str(), segments.as_slice()) {
            ("POST", ["v1", "image-router" | "video-router", "generate"] | ["jobs"]) => {
                c.submits += 1
            }
            ("GET", ["v1", "jobs", _, "status"] | ["jobs", _]) | ("POST", ["jobs", "wait"]) => {
                c.polls += 1
            }
            ("POST", ["jobs", _, "cancel"]) => c.cancels += 1,
            ("GET", ["v1", "jobs", _, "result"]) => c.results += 1,
            ("POST", ["v1", "jobs", _, "cancel"]) => c.cancels += 1,
            _ => {}
        }
        if let Some(s) = self.scripts.get_mut(&key).and_then(VecDeque::pop_front) {
            self.counters.scripted = self.counters.scripted.saturating_add(1);
            let (code, message) = if s.status == 429 {
                (
                    "rate_limit_exceeded",
                    "too many requests; retry after the delay",
                )
            } else {
                ("service_unavailable", "the service is briefly unavailable")
            };
            return Err(Box::new((
                error(s.status, code, message, None),
                s.retryable,
                s.retry_after_s,
            )));
        }
        let owner = Owner {
            workspace: key.clone(),
            member: key.clone(),
        };
        match (req.method.as_str(), segments.as_slice()) {
            ("GET", ["v1", "open", "catalog", name]) => {
                let name = percent_decode(name).unwrap_or_default();
                self.config
                    .catalog
                    .iter()
                    .find(|m| m.name == name)
                    .map(|m| {
                        (
                            200,
                            json!({"data": {"model": m.name, "kind": m.kind.as_str()}}),
                        )
                    })
                    .ok_or_else(|| permanent(error(404, "not_found", "no such model", None)))
            }
            ("POST", ["v1", "image-router" | "video-router", "generate"]) => {
                self.submit(now, &key, &owner, path, req)
            }
            ("POST", ["jobs"]) => self.tools_submit(now, &key, &owner, req),
            ("POST", ["jobs", "wait"]) => self.tools_wait(now, &owner, req),
            ("GET", ["jobs", id]) => {
                let id = percent_decode(id).unwrap_or_default();
                self.book.get(&owner, &id).map_err(permanent)?;
                if let Some(c) = self.counters.jobs.get_mut(&id) {
                    c.polls = c.polls.saturating_add(1);
                }
                Ok((200, self.tools_job(&id, true)))
            }
            ("POST", ["jobs", id, "cancel"]) => {
                let id = percent_decode(id).unwrap_or_default();
                let body = json_body(req).unwrap_or(Value::Null);
                let cancel_key = body.get("idempotency_key").and_then(Value::as_str);
                self.book
                    .cancel(now, &owner, &id, cancel_key)
                    .map_err(permanent)?;
                self.note_status(now, &id);
                self.handle_timeout(now);
                Ok((200, self.tools_job(&id, false)))
            }
            (method, ["v1", "jobs", id, tail]) => {
                let id = percent_decode(id).unwrap_or_default();
                self.job_route(now, &owner, method, &id, tail)
            }
            _ => Err(permanent(error(
                404,
                "route_not_found",
                "no such route",
                None,
            ))),
        }
    }

    fn script(&mut self, key: &str, req: &HttpRequest) -> Routed {
        let body: Value = req
            .body
            .as_deref()
            .and_then(|b| serde_json::from_slice(b.as_bytes()).ok())
            .unwrap_or(Value::Null);
        let answers = body
            .get("answers")
            .and_then(Value::as_array)
            .ok_or_else(|| {
                (
                    field_error("answers", "a list of {status, retry_after_s?}"),
                    false,
                    None,
                )
            })?;
        let mut parsed = Vec::new();
        for a in answers {
            let status = a
                .get("status")
                .and_then(Value::as_u64)
                .and_then(|s| u16::try_from(s).ok())
                .filter(|s| (400..600).contains(s))
                .ok_or_else(|| {
                    (
                        field_error("answers[].status", "a 4xx or 5xx status"),
                        false,
                        None,
                    )
                })?;
            parsed.push(Scripted {
                status,
                retry_after_s: a.get("retry_after_s").and_then(Value::as_u64),
                retryable: a.get("retryable").and_then(Value::as_bool).unwrap_or(true),
            });
        }
        let queue = self.scripts.entry(key.into()).or_default();
        queue.extend(parsed);
        Ok((200, json!({"data": {"queued": queue.len()}})))
    }

    fn submit(
        &mut self,
        now: u64,
        key: &str,
        owner: &Owner,
        path: &str,
        req: &HttpRequest,
    ) -> Routed {
        let body = json_body(req)?;
        let idem = req
            .headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(IDEMPOTENCY_KEY_HEADER))
            .map(|(_, v)| v.as_str());
        let view = self.create(now, key, owner, &body, Some(path), idem)?;
        let status = self.open_status(&view.id);
        Ok((
            200,
            json!({"data": {"request_id": view.id, "sume_status": status}}),
        ))
    }

    /// `POST /jobs` of the MCP job tools: `{model, ..., idempotency_key?}` → `{object, job}`.
    fn tools_submit(&mut self, now: u64, key: &str, owner: &Owner, req: &HttpRequest) -> Routed {
        let body = json_body(req)?;
        let idem = body
            .get("idempotency_key")
            .and_then(Value::as_str)
            .map(String::from);
        let view = self.create(now, key, owner, &body, None, idem.as_deref())?;
        let kind = self
            .meta
            .get(&view.id)
            .and_then(|(m, _, _)| self.config.catalog.get(*m))
            .map_or("image", |m| m.kind.as_str());
        let job = self.tools_job(&view.id, false);
        Ok((
            202,
            json!({"object": format!("{kind}_generation"), "job": job}),
        ))
    }

    /// A job as the MCP job tools write it: `{id, status, result?, error?}`.
    fn tools_job(&self, id: &str, with_result: bool) -> Value {
        let Some((_, mut v)) = self.book.peek(id) else {
            return Value::Null;
        };
        if !with_result {
            v.result = None;
        }
        serde_json::to_value(self.with_reason(v)).unwrap_or(Value::Null)
    }

    fn create(
        &mut self,
        now: u64,
        key: &str,
        owner: &Owner,
        body: &Value,
        route: Option<&str>,
        idem: Option<&str>,
    ) -> Result<crate::view::JobView, Refusal> {
        let name = body
            .get("model")
            .and_then(Value::as_str)
            .ok_or_else(|| permanent(field_error("model", "required")))?;
        let (index, m) = self
            .config
            .catalog
            .iter()
            .enumerate()
            .find(|(_, m)| m.name == name)
            .ok_or_else(|| permanent(field_error("model", "not in the catalog")))?;
        if route.is_some_and(|r| r != m.kind.route()) {
            return Err(permanent(field_error(
                "model",
                "this model is submitted on its kind's route",
            )));
        }
        let job_id = format!("{}{:06}", self.config.id_prefix, self.next_job);
        match self.book.submit(now, owner, &job_id, idem) {
            Ok(view) => {
                if view.id == job_id {
                    self.next_job = self.next_job.saturating_add(1);
                    self.counters.jobs_created = self.counters.jobs_created.saturating_add(1);
                    if let Some(k) = idem {
                        *self
                            .counters
                            .jobs_per_idempotency_key
                            .entry(k.into())
                            .or_insert(0) += 1;
                    }
                    self.meta.insert(job_id.clone(), (index, now, None));
                    self.counters.jobs.insert(
                        job_id.clone(),
                        JobCounters {
                            key: key.into(),
                            model: name.into(),
                            status: "queued".into(),
                            ..JobCounters::default()
                        },
                    );
                    self.note_status(now, &job_id);
                }
                self.handle_timeout(now);
                Ok(view)
            }
            Err(e) if e.code == "queue_full" => Err(Box::new((
                e,
                true,
                Some(self.config.queue_full_retry_after_s),
            ))),
            Err(e) => Err(permanent(e)),
        }
    }

    /// `POST /jobs/wait {job_ids, wait_for, include_results}`: answered at once with the
    /// snapshot (`timed_out: true` when the condition does not hold yet: this server does not
    /// hold requests). An id the caller may not see makes the whole call `404 not_found`.
    fn tools_wait(&mut self, now: u64, owner: &Owner, req: &HttpRequest) -> Routed {
        let body = json_body(req)?;
        let ids: Vec<String> = body
            .get("job_ids")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(String::from)
                    .collect()
            })
            .ok_or_else(|| permanent(field_error("job_ids", "a list of 1 to 20 job ids")))?;
        let wait_for = match body.get("wait_for").and_then(Value::as_str) {
            None | Some("all") => super::WaitFor::All,
            Some("any") => super::WaitFor::Any,
            Some(_) => return Err(permanent(field_error("wait_for", "all or any"))),
        };
        let include = body
            .get("include_results")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let answer = self
            .book
            .wait(now, owner, &ids, wait_for, include)
            .map_err(permanent)?;
        let mut jobs = Vec::with_capacity(answer.jobs.len());
        for entry in &answer.jobs {
            match entry {
                super::WaitEntry::Job { job } => jobs.push(self.tools_job(&job.id, include)),
                super::WaitEntry::NotFound { .. } => {
                    return Err(permanent(error(404, "not_found", "job not found", None)))
                }
            }
        }
        Ok((200, json!({"jobs": jobs, "timed_out": !answer.satisfied})))
    }

    fn open_status(&self, id: &str) -> Value {
        self.book
            .peek(id)
            .map(|(_, v)| sume_open::status_body(&self.with_reason(v)))
            .and_then(|b| b.pointer("/data/sume_status").cloned())
            .unwrap_or(Value::Null)
    }

    /// The book's view with the content-policy reason of an `nsfw` ending.
    fn with_reason(&self, mut v: crate::view::JobView) -> crate::view::JobView {
        let nsfw = self
            .meta
            .get(&v.id)
            .and_then(|(m, _, _)| self.config.catalog.get(*m))
            .is_some_and(|m| m.ending == Ending::Nsfw);
        if nsfw && v.status == Status::Failed {
            v.error =
                Some(json!({"code": sume_open::CONTENT_POLICY, "public_reason": "nsfw"}).into());
        }
        v
    }

    fn job_route(&mut self, now: u64, owner: &Owner, method: &str, id: &str, tail: &str) -> Routed {
        match (method, tail) {
            ("GET", "status") => {
                let view = self.book.get(owner, id).map_err(permanent)?;
                if let Some(c) = self.counters.jobs.get_mut(id) {
                    c.polls = c.polls.saturating_add(1);
                }
                let mut body = sume_open::status_body(&self.with_reason(view));
                if let Some(d) = body.get_mut("data").and_then(Value::as_object_mut) {
                    d.remove("result");
                }
                Ok((200, body))
            }
            ("GET", "result") => {
                let view = self.book.get(owner, id).map_err(permanent)?;
                if view.status != Status::Completed {
                    return Err(permanent(error(
                        409,
                        "job_not_completed",
                        "the job has no result: ask its status",
                        Some(json!({"status": view.status.as_str()})),
                    )));
                }
                Ok((
                    200,
                    json!({"data": {"request_id": id, "sume_status": "completed", "result": view.result}}),
                ))
            }
            ("POST", "cancel") => {
                let before = self.book.credits(&owner.workspace);
                let view = self.book.cancel(now, owner, id, None).map_err(permanent)?;
                self.note_status(now, id);
                let after = self.book.credits(&owner.workspace);
                let refunded = after > before
                    || self
                        .counters
                        .jobs
                        .get(id)
                        .is_some_and(|c| c.status == "canceled");
                self.handle_timeout(now);
                Ok((
                    200,
                    json!({"data": {"request_id": view.id, "sume_status": "canceled",
                        "refunded": refunded, "credits": after}}),
                ))
            }
            _ => Err(permanent(error(
                404,
                "route_not_found",
                "no such route",
                None,
            ))),
        }
    }
}
