//! The Sume Open API: Sume jobs over plain HTTP, as its official client (`sume-client` 0.1.1)
//! speaks it. Readers of every answer into the job model, and every request as pure data.
//!
//! | what | request ([`HttpRequest`]) | answer read by |
//! |---|---|---|
//! | model kind | `GET /v1/open/catalog/{model}` | [`read_catalog`] → [`Kind`] |
//! | submit | `POST /v1/image-router/generate` or `/v1/video-router/generate`, header `Idempotency-Key` | [`read_submit`] |
//! | status | `GET /v1/jobs/{id}/status` | [`read_status`] |
//! | result | `GET /v1/jobs/{id}/result` | [`read_result`] |
//! | cancel | `POST /v1/jobs/{id}/cancel` (no body) | [`cancel_answer`] |
//! | any error | | [`read_error`], [`failure`], [`advice`] |
//!
//! ## Rules, written once
//!
//! The codecs read the job API as its official client speaks it (D-1). The same jobs have two
//! dialects: the MCP job tools (`jobs_get`, `jobs_wait`, `jobs_cancel`, read by
//! [`super::sume`], rules J-1 to J-5) and this Open API. Both map onto one lifecycle
//! ([`crate::lifecycle::JOB_TABLE`]) and one tracker; each difference is a rule below.
//!
//! * **D-2 One job, two spellings.** The submit's `data.request_id` is the job id of both
//!   dialects. Every answer reads into the same [`JobView`] and feeds the same tracker inputs:
//!   a submit is [`Input::JobCreated`](crate::tracker::Input::JobCreated), a status answer
//!   [`Input::JobPolled`](crate::tracker::Input::JobPolled) (a `jobs_get` answer or a `jobs_wait`
//!   entry on the MCP side), a cancel answer a [`CancelAnswer`], an error envelope
//!   [`Failure::Http`].
//! * **D-3 Statuses.** [`STATUS_TABLE`]: `queued`, `processing`, `completed`, `failed`,
//!   `canceled` are the job statuses of the same name; `nsfw` is `failed` with reason
//!   [`CONTENT_POLICY`]. Any other text (`running` and `expired` included, which only the MCP
//!   tools speak) is [`Error::UnknownStatus`], never "still pending"; the official client raises
//!   on it too.
//! * **D-4 Content policy is its own reason.** `nsfw`, and `failed` whose
//!   `job.error.public_reason` is `content_policy_rejected`, settle with outcome `failed` and
//!   the error body `{"code": "content_policy", "sume_status", "public_reason"}`, so a person
//!   is told "the content policy refused it", not "it broke". A plain `failed` keeps the job's
//!   own error body (or `{"code": "failed"}` when it sent none).
//! * **D-5 Envelopes.** Answers are wrapped in `data`. An error is
//!   `{"error": {"code", "message", "details", "request_id", "retryable"}}`; its request id is
//!   `error.request_id`, else a top-level `request_id`, else the `x-sume-request-id` header.
//!   An error without a readable envelope keeps its HTTP status and has no code.
//! * **D-6 `retryable: false` wins.** It makes the answer permanent whatever its HTTP status:
//!   a 503 or 429 that says `retryable: false` is not retried ([`advice`]). `retryable: true`
//!   or an absent flag leaves the status class of [`crate::admission::TABLE`] (it never makes
//!   a 4xx retryable). The flag governs sending the **same request** again (a submit, a
//!   cancel); a status poll is not given up because of it: the watch's deadline bounds
//!   polling, and only a 404 `not_found` ends it (lost; O-6).
//! * **D-7 Retry-After** is delta-seconds or an HTTP date measured from `now`
//!   ([`crate::time::parse_retry_after_ms`]), a floor before the next try. A date is never
//!   read as zero (the official client reads it as zero and retries at once).
//! * **D-8 Submit.** The route comes from the catalog kind ([`Kind::route`]): `image` →
//!   `/v1/image-router/generate`; `video`, `lipsync`, `captions` → `/v1/video-router/generate`;
//!   any other kind cannot be submitted ([`Error::InvalidInput`]). The body is
//!   `{"model", ...arguments}`. The `Idempotency-Key` header carries the key of the caller's
//!   **intent**: the same for every retry, and for the reconciling submit after a lost answer
//!   (the server then answers with the job it already has). On the MCP side the same key
//!   travels as the `idempotency_key` argument. (The official client makes a fresh key on each
//!   `submit()` call, so calling it again after a timeout pays twice.)
//! * **D-9 Cancel.** The Open API cancel has no body and no key: the cancel table makes it
//!   idempotent (a canceled job answers canceled again). Its answers read into the same
//!   [`CancelAnswer`] as `jobs_cancel`: 2xx is the job with the status its `data.sume_status`
//!   names. A 2xx that names none (no body, a proxy's HTML page, another JSON shape) reads as
//!   a bare acknowledgement ([`CancelAnswer::Ack`]), never as `canceled`: a button that said
//!   cancelled on such a page would hide a job that runs and bills. For a job that answer
//!   decides nothing, so the next status does (C-20). 409
//!   `job_generation_already_started` means keep watching, the
//!   job completes and bills; 409 `job_not_cancelable` means it had ended; 404 `not_found`
//!   means the handle is lost.
//! * **D-10 Result.** `GET /result` is asked only after `completed`; its `data` is the result
//!   (`data.result.artifacts[].url`). Other terminal statuses carry their reason in the status
//!   answer, and there is nothing to fetch.
//! * **D-11 Ids** are percent-encoded into the path; `""`, `.` and `..` are refused before
//!   anything is sent (as the official client does).
//! * **D-12 Not yours is unknown.** Another key's job and an unknown id get the same 404
//!   `not_found` with the same body; the tracker settles `lost`.
//!
//! The reference server's side of these rules is [`crate::server::OpenApiServer`].

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use crate::admission::{classify_answer, Advice, ErrorCode, PermanentReason, SubmitAnswer};
use crate::cancel::{CancelAnswer, JobErrorCode};
use crate::error::Error;
use crate::model::Model;
use crate::status::Status;
use crate::tracker::Failure;
use crate::view::{ApiError, JobView};
use crate::Json;

/// The reason code of a job the content policy refused (D-4).
pub const CONTENT_POLICY: &str = "content_policy";

/// The `job.error.public_reason` that turns a `failed` job into a content-policy refusal.
pub const CONTENT_POLICY_REJECTED: &str = "content_policy_rejected";

/// The header that carries a request id when the body does not.
pub const REQUEST_ID_HEADER: &str = "x-sume-request-id";

/// The header that carries the submit's idempotency key.
pub const IDEMPOTENCY_KEY_HEADER: &str = "Idempotency-Key";

/// Image submits.
pub const IMAGE_ROUTE: &str = "/v1/image-router/generate";

/// Video, lipsync and captions submits.
pub const VIDEO_ROUTE: &str = "/v1/video-router/generate";

/// HTTP statuses retried by the status class (the official client's set).
pub const RETRYABLE_STATUSES: &[u16] = &[408, 429, 500, 502, 503, 504];

/// An Open API `sume_status` (D-3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum OpenStatus {
    /// Waiting for a slot; cancelable.
    Queued,
    /// Generation started; runs to completion and bills.
    Processing,
    /// Finished; the result is at `/result`.
    Completed,
    /// Failed.
    Failed,
    /// Refused by the content policy.
    Nsfw,
    /// Canceled while queued; refunded.
    Canceled,
}

crate::tagged::unit_enum!(
    OpenStatus,
    "enum OpenStatus",
    [
        (OpenStatus::Queued, "queued"),
        (OpenStatus::Processing, "processing"),
        (OpenStatus::Completed, "completed"),
        (OpenStatus::Failed, "failed"),
        (OpenStatus::Nsfw, "nsfw"),
        (OpenStatus::Canceled, "canceled"),
    ]
);

/// D-3: wire spelling, job status, and the reason a failure carries.
pub const STATUS_TABLE: &[(&str, OpenStatus, Status, Option<&str>)] = &[
    ("queued", OpenStatus::Queued, Status::Queued, None),
    (
        "processing",
        OpenStatus::Processing,
        Status::Processing,
        None,
    ),
    ("completed", OpenStatus::Completed, Status::Completed, None),
    ("failed", OpenStatus::Failed, Status::Failed, None),
    (
        "nsfw",
        OpenStatus::Nsfw,
        Status::Failed,
        Some(CONTENT_POLICY),
    ),
    ("canceled", OpenStatus::Canceled, Status::Canceled, None),
];

impl OpenStatus {
    /// Reads a `sume_status`. Unknown text is [`Error::UnknownStatus`] (D-3).
    ///
    /// ```
    /// use longcall::wire::sume_open::OpenStatus;
    /// assert_eq!(OpenStatus::parse("nsfw").unwrap(), OpenStatus::Nsfw);
    /// assert_eq!(OpenStatus::parse("running").unwrap_err().code(), "unknown_status");
    /// ```
    pub fn parse(text: &str) -> Result<OpenStatus, Error> {
        STATUS_TABLE
            .iter()
            .find(|row| row.0 == text)
            .map(|row| row.1)
            .ok_or_else(|| Error::UnknownStatus {
                model: Model::Job,
                raw: text.into(),
            })
    }

    fn row(self) -> (&'static str, Status, Option<&'static str>) {
        STATUS_TABLE
            .iter()
            .find(|row| row.1 == self)
            .map_or(("failed", Status::Failed, None), |row| {
                (row.0, row.2, row.3)
            })
    }

    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        self.row().0
    }

    /// The job status it stands for (`nsfw` is `failed`).
    pub fn status(self) -> Status {
        self.row().1
    }

    /// The spelling for a job status this dialect can say (`running` is `processing`;
    /// `expired` and the task statuses have no Open API spelling).
    pub fn from_status(status: Status) -> Option<OpenStatus> {
        match status.phase() {
            Status::Queued => Some(OpenStatus::Queued),
            Status::Processing => Some(OpenStatus::Processing),
            Status::Completed => Some(OpenStatus::Completed),
            Status::Failed => Some(OpenStatus::Failed),
            Status::Canceled => Some(OpenStatus::Canceled),
            _ => None,
        }
    }
}

/// A model's kind from the catalog.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Kind {
    /// An image model.
    Image,
    /// A video model.
    Video,
    /// A lipsync model (submitted on the video route).
    Lipsync,
    /// A captions model (submitted on the video route).
    Captions,
}

crate::tagged::unit_enum!(
    Kind,
    "enum Kind",
    [
        (Kind::Image, "image"),
        (Kind::Video, "video"),
        (Kind::Lipsync, "lipsync"),
        (Kind::Captions, "captions"),
    ]
);

/// D-8: kind, wire spelling, submit route.
pub const KIND_TABLE: &[(Kind, &str, &str)] = &[
    (Kind::Image, "image", IMAGE_ROUTE),
    (Kind::Video, "video", VIDEO_ROUTE),
    (Kind::Lipsync, "lipsync", VIDEO_ROUTE),
    (Kind::Captions, "captions", VIDEO_ROUTE),
];

impl Kind {
    /// Reads a catalog kind; another kind cannot be submitted.
    pub fn parse(text: &str) -> Result<Kind, Error> {
        KIND_TABLE
            .iter()
            .find(|row| row.1 == text)
            .map(|row| row.0)
            .ok_or_else(|| {
                let reason = crate::text::Text::new()
                    .q(text)
                    .s(" is not a kind with a submit route (image, video, lipsync, captions)")
                    .done();
                Error::invalid_input("kind", &reason)
            })
    }

    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        KIND_TABLE
            .iter()
            .find(|row| row.0 == self)
            .map_or("image", |row| row.1)
    }

    /// The submit path.
    pub fn route(self) -> &'static str {
        KIND_TABLE
            .iter()
            .find(|row| row.0 == self)
            .map_or(IMAGE_ROUTE, |row| row.2)
    }
}

/// A request as pure data: the host sends it, adding `Authorization: Bearer <key>` and its base
/// URL (the core never holds a secret).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HttpRequest {
    /// `GET` or `POST`.
    pub method: String,
    /// The path, ids percent-encoded.
    pub path: String,
    /// Extra headers, in order.
    pub headers: Vec<(String, String)>,
    /// The JSON body, when there is one (send it with `Content-Type: application/json`).
    pub body: Option<String>,
}

impl HttpRequest {
    fn new(method: &str, path: String) -> HttpRequest {
        HttpRequest {
            method: method.into(),
            path,
            headers: Vec::new(),
            body: None,
        }
    }
}

/// Percent-encodes one path segment (everything but RFC 3986 unreserved characters).
fn encode_segment(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// D-11: refuses ids the path cannot carry.
/// Whether `id` can name a job in a path: not empty, `.` or `..` (D-11).
fn names_a_job(id: &str) -> bool {
    !matches!(id, "" | "." | "..")
}

fn job_path(job_id: &str, tail: &str) -> Result<String, Error> {
    if !names_a_job(job_id) {
        return Err(Error::invalid_input(
            "job_id",
            "an empty id, \".\" or \"..\" cannot name a job",
        ));
    }
    Ok(format!("/v1/jobs/{}/{tail}", encode_segment(job_id)))
}

/// `GET /v1/open/catalog/{model}`: ask a model's kind once, before its first submit.
pub fn catalog_request(model: &str) -> Result<HttpRequest, Error> {
    if model.is_empty() {
        return Err(Error::invalid_input("model", "empty model name"));
    }
    Ok(HttpRequest::new(
        "GET",
        format!("/v1/open/catalog/{}", encode_segment(model)),
    ))
}

/// The submit (D-8): `POST` on the kind's route, body `{"model", ...arguments}` (a `model`
/// inside `arguments` is ignored), header `Idempotency-Key: idempotency_key`. Build it once
/// per intent and send the same request for every retry.
///
/// ```
/// use longcall::wire::sume_open::{submit_request, Kind};
/// let r = submit_request(Kind::Video, "vid-1", &serde_json::json!({"prompt": "a harbour"}), "intent-7").unwrap();
/// assert_eq!((r.method.as_str(), r.path.as_str()), ("POST", "/v1/video-router/generate"));
/// assert_eq!(r.headers, vec![("Idempotency-Key".to_string(), "intent-7".to_string())]);
/// assert_eq!(r.body.as_deref(), Some(r#"{"model":"vid-1","prompt":"a harbour"}"#));
/// ```
pub fn submit_request(
    kind: Kind,
    model: &str,
    arguments: &Value,
    idempotency_key: &str,
) -> Result<HttpRequest, Error> {
    if model.is_empty() {
        return Err(Error::invalid_input("model", "empty model name"));
    }
    if idempotency_key.is_empty() {
        return Err(Error::invalid_input(
            "idempotency_key",
            "a submit needs the key of its intent",
        ));
    }
    let args = match arguments {
        Value::Object(map) => map,
        Value::Null => &Map::new(),
        _ => {
            return Err(Error::invalid_input(
                "arguments",
                "the arguments must be a JSON object",
            ))
        }
    };
    let mut body = Map::new();
    body.insert("model".into(), Value::from(model));
    for (k, v) in args {
        if k != "model" {
            body.insert(k.clone(), v.clone());
        }
    }
    let mut req = HttpRequest::new("POST", kind.route().into());
    req.headers
        .push((IDEMPOTENCY_KEY_HEADER.into(), idempotency_key.into()));
    req.body = Some(crate::json_text(&Value::Object(body)));
    Ok(req)
}

/// `GET /v1/jobs/{id}/status`: one poll.
pub fn status_request(job_id: &str) -> Result<HttpRequest, Error> {
    Ok(HttpRequest::new("GET", job_path(job_id, "status")?))
}

/// `GET /v1/jobs/{id}/result`: only after `completed` (D-10).
pub fn result_request(job_id: &str) -> Result<HttpRequest, Error> {
    Ok(HttpRequest::new("GET", job_path(job_id, "result")?))
}

/// `POST /v1/jobs/{id}/cancel`, no body (D-9).
///
/// ```
/// use longcall::wire::sume_open::cancel_request;
/// assert_eq!(cancel_request("job 1/a").unwrap().path, "/v1/jobs/job%201%2Fa/cancel");
/// assert_eq!(cancel_request("..").unwrap_err().code(), "invalid_input");
/// ```
pub fn cancel_request(job_id: &str) -> Result<HttpRequest, Error> {
    Ok(HttpRequest::new("POST", job_path(job_id, "cancel")?))
}

fn data<'a>(body: &'a Value, what: &'static str) -> Result<&'a Map<String, Value>, Error> {
    body.get("data")
        .and_then(Value::as_object)
        .ok_or_else(|| Error::Malformed {
            what,
            reason: "missing the data object".into(),
        })
}

/// Reads a catalog answer `{"data": {"kind"}}`.
pub fn read_catalog(body: &Value) -> Result<Kind, Error> {
    let kind = data(body, "catalog answer")?
        .get("kind")
        .and_then(Value::as_str)
        .ok_or_else(|| Error::Malformed {
            what: "catalog answer",
            reason: "data.kind must be a string".into(),
        })?;
    Kind::parse(kind)
}

/// Reads a submit answer `{"data": {"request_id", "sume_status"?}}` into the created job (a
/// missing status is `queued`: queue-first admission).
///
/// ```
/// use longcall::wire::sume_open::read_submit;
/// let j = read_submit(&serde_json::json!({"data": {"request_id": "job_1"}})).unwrap();
/// assert_eq!((j.id.as_str(), j.status), ("job_1", longcall::Status::Queued));
/// // An id no status path can carry is no job (D-11).
/// assert!(read_submit(&serde_json::json!({"data": {"request_id": ".."}})).is_err());
/// ```
pub fn read_submit(body: &Value) -> Result<JobView, Error> {
    let d = data(body, "submit answer")?;
    let id = d
        .get("request_id")
        .and_then(Value::as_str)
        .filter(|id| names_a_job(id))
        .ok_or_else(|| Error::Malformed {
            what: "submit answer",
            reason: "data.request_id must be a string that can name a job (not empty, . or ..)"
                .into(),
        })?;
    match d.get("sume_status") {
        None | Some(Value::Null) => Ok(JobView {
            id: id.into(),
            status: Status::Queued,
            result: None,
            error: None,
        }),
        Some(_) => read_status_data(id, d),
    }
}

/// Reads a status answer `{"data": {"sume_status", "job"?: {"error"?: {"public_reason"}}}}` for
/// job `job_id` (the id is the path's; the answer need not repeat it). D-3, D-4.
///
/// ```
/// use longcall::wire::sume_open::read_status;
/// use longcall::Status;
/// let body = serde_json::json!({"data": {"sume_status": "failed",
///     "job": {"error": {"public_reason": "content_policy_rejected"}}}});
/// let j = read_status("job_1", &body).unwrap();
/// assert_eq!(j.status, Status::Failed);
/// assert_eq!(j.error.unwrap()["code"], "content_policy");
/// ```
pub fn read_status(job_id: &str, body: &Value) -> Result<JobView, Error> {
    read_status_data(job_id, data(body, "status answer")?)
}

fn read_status_data(job_id: &str, d: &Map<String, Value>) -> Result<JobView, Error> {
    let text = d
        .get("sume_status")
        .and_then(Value::as_str)
        .ok_or_else(|| Error::Malformed {
            what: "status answer",
            reason: "data.sume_status must be a string".into(),
        })?;
    let open = OpenStatus::parse(text)?;
    let job_error = d.get("job").and_then(|j| j.get("error"));
    let public_reason = job_error
        .and_then(|e| e.get("public_reason"))
        .and_then(Value::as_str);
    let refused = open == OpenStatus::Nsfw
        || (open == OpenStatus::Failed && public_reason == Some(CONTENT_POLICY_REJECTED));
    let error = if refused {
        let mut e = Map::new();
        e.insert("code".into(), Value::from(CONTENT_POLICY));
        e.insert("sume_status".into(), Value::from(open.as_str()));
        if let Some(r) = public_reason {
            e.insert("public_reason".into(), Value::from(r));
        }
        Some(Value::Object(e))
    } else if open == OpenStatus::Failed {
        Some(
            job_error
                .filter(|e| e.is_object())
                .cloned()
                .unwrap_or_else(|| json!({"code": "failed"})),
        )
    } else {
        None
    };
    Ok(JobView {
        id: job_id.into(),
        status: open.status(),
        result: if open == OpenStatus::Completed {
            d.get("result").cloned().map(Json::from)
        } else {
            None
        },
        error: error.map(Json::from),
    })
}

/// True when a job view is a content-policy refusal (D-4).
pub fn is_content_policy(job: &JobView) -> bool {
    job.status == Status::Failed
        && job
            .error
            .as_ref()
            .and_then(|e| e.get("code"))
            .and_then(Value::as_str)
            == Some(CONTENT_POLICY)
}

/// Reads a result answer `{"data": ...}` into the completed job (D-10). One whose
/// `data.sume_status` names another status (the result not ready yet, the job failed after
/// all) is read as that status, as a status answer is: no result is taken from it (D-21).
///
/// ```
/// use longcall::status::Status;
/// use longcall::wire::sume_open::read_result;
/// let done = serde_json::json!({"data": {"sume_status": "completed", "result": {"artifacts": []}}});
/// assert_eq!(read_result("job_1", &done).unwrap().status, Status::Completed);
/// let early = serde_json::json!({"data": {"sume_status": "processing"}});
/// let job = read_result("job_1", &early).unwrap();
/// assert_eq!((job.status, job.result), (Status::Processing, None));
/// ```
pub fn read_result(job_id: &str, body: &Value) -> Result<JobView, Error> {
    let d = data(body, "result answer")?;
    if d.get("sume_status").is_some_and(|s| s != "completed") {
        return read_status_data(job_id, d);
    }
    Ok(JobView {
        id: job_id.into(),
        status: Status::Completed,
        result: Some(Value::Object(d.clone()).into()),
        error: None,
    })
}

/// The first artifact URL of a result (`data.result.artifacts[0].url`, or
/// `result.artifacts[0].url` of a read result).
pub fn artifact_url(result: &Value) -> Option<&str> {
    let r = result.get("result").unwrap_or(result);
    r.get("artifacts")?
        .as_array()?
        .first()?
        .get("url")?
        .as_str()
}

/// An Open API error answer (D-5): the envelope, its `retryable` flag and its request id.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OpenError {
    /// The envelope as the job model reads it (`code` empty when there was no envelope).
    pub api: ApiError,
    /// `error.retryable`, when the envelope said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retryable: Option<bool>,
    /// `Retry-After` in ms, when the answer carried a readable one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_after_ms: Option<u64>,
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

/// Reads an error answer: HTTP status, response headers, and the body (`None` when it was not
/// JSON). Never fails: an answer without an envelope keeps its status with an empty code.
/// `now_ms` measures a `Retry-After` date (D-7).
///
/// ```
/// use longcall::wire::sume_open::read_error;
/// let body = serde_json::json!({"error": {"code": "upstream_down", "message": "try later",
///     "retryable": false}});
/// let headers = vec![("X-Sume-Request-Id".to_string(), "req_9".to_string())];
/// let e = read_error(503, &headers, Some(&body), 0);
/// assert_eq!((e.api.code.as_str(), e.retryable), ("upstream_down", Some(false)));
/// assert_eq!(e.api.request_id.as_deref(), Some("req_9"));
/// ```
pub fn read_error(
    http_status: u16,
    headers: &[(String, String)],
    body: Option<&Value>,
    now_ms: u64,
) -> OpenError {
    let err = body.and_then(|b| b.get("error")).filter(|e| e.is_object());
    let text = |v: Option<&Value>| v.and_then(Value::as_str).map(String::from);
    let request_id = text(err.and_then(|e| e.get("request_id")))
        .or_else(|| text(body.and_then(|b| b.get("request_id"))))
        .or_else(|| header(headers, REQUEST_ID_HEADER).map(String::from));
    OpenError {
        api: ApiError {
            http_status,
            code: text(err.and_then(|e| e.get("code"))).unwrap_or_default(),
            message: text(err.and_then(|e| e.get("message"))).unwrap_or_default(),
            details: err.and_then(|e| e.get("details")).cloned().map(Json::from),
            request_id,
        },
        retryable: err
            .and_then(|e| e.get("retryable"))
            .and_then(Value::as_bool),
        retry_after_ms: crate::time::retry_after_header_ms(headers, now_ms),
    }
}

/// The tracker's [`Failure::Http`] for an error answer to a status, result or cancel request.
pub fn failure(error: &OpenError) -> Failure {
    Failure::Http {
        status: error.api.http_status,
        code: (!error.api.code.is_empty()).then(|| error.api.code.clone()),
        retry_after_ms: error.retry_after_ms,
    }
}

/// What to do after an error answer to a submit: the admission table, except that
/// `retryable: false` makes it permanent (D-6).
///
/// ```
/// use longcall::admission::{Advice, PermanentReason};
/// use longcall::wire::sume_open::{advice, read_error};
/// let body = serde_json::json!({"error": {"code": "x", "retryable": false}});
/// assert_eq!(advice(&read_error(503, &[], Some(&body), 0)),
///            Advice::Permanent { reason: PermanentReason::Rejected });
/// assert_eq!(advice(&read_error(503, &[], None, 0)), Advice::Backoff { not_before_ms: None });
/// ```
pub fn advice(error: &OpenError) -> Advice {
    let a = classify_answer(&SubmitAnswer {
        http_status: error.api.http_status,
        error_code: ErrorCode::parse(&error.api.code),
        retry_after_ms: error.retry_after_ms,
    });
    match (error.retryable, a) {
        (
            Some(false),
            Advice::Backoff { .. } | Advice::RetryAfter { .. } | Advice::QueueFull { .. },
        ) => Advice::Permanent {
            reason: PermanentReason::Rejected,
        },
        (_, a) => a,
    }
}

/// Whether an error answer to any request may be sent again unchanged: its status is in
/// [`RETRYABLE_STATUSES`] and `retryable` is not `false` (D-6).
pub fn is_retryable(error: &OpenError) -> bool {
    error.retryable != Some(false) && RETRYABLE_STATUSES.contains(&error.api.http_status)
}

/// Reads a cancel answer (D-9): HTTP status and body (`None` when it was not JSON). A 2xx
/// whose body names no `data.sume_status` is [`CancelAnswer::Ack`]: the cancel's effect is not
/// known until a status is observed.
///
/// ```
/// use longcall::cancel::{CancelAnswer, JobErrorCode};
/// use longcall::wire::sume_open::cancel_answer;
/// use longcall::status::JobStatus;
/// let canceled = serde_json::json!({"data": {"request_id": "job_1", "sume_status": "canceled"}});
/// assert_eq!(cancel_answer(200, Some(&canceled)).unwrap(), CancelAnswer::Job { status: JobStatus::Canceled });
/// assert_eq!(cancel_answer(200, None).unwrap(), CancelAnswer::Ack);
/// let started = serde_json::json!({"error": {"code": "job_generation_already_started"}});
/// assert_eq!(cancel_answer(409, Some(&started)).unwrap(), CancelAnswer::JobError {
///     http_status: 409, code: JobErrorCode::JobGenerationAlreadyStarted, cancelable: Some(false) });
/// ```
pub fn cancel_answer(http_status: u16, body: Option<&Value>) -> Result<CancelAnswer, Error> {
    if (200..300).contains(&http_status) {
        let status = match body
            .and_then(|b| b.get("data"))
            .and_then(|d| d.get("sume_status"))
        {
            Some(Value::String(s)) => OpenStatus::parse(s)?.status().expect_job()?,
            _ => return Ok(CancelAnswer::Ack),
        };
        return Ok(CancelAnswer::Job { status });
    }
    let e = read_error(http_status, &[], body, 0);
    let code = JobErrorCode::parse(&e.api.code);
    let cancelable = e
        .api
        .details
        .as_ref()
        .and_then(|d| d.get("cancelable"))
        .and_then(Value::as_bool)
        // A started or ended job cannot be canceled, whether or not the details say so.
        .or(match code {
            JobErrorCode::JobGenerationAlreadyStarted | JobErrorCode::JobNotCancelable => {
                Some(false)
            }
            _ => None,
        });
    Ok(CancelAnswer::JobError {
        http_status,
        code,
        cancelable,
    })
}

/// Builds the status answer body the reference server sends for a job view (the inverse of
/// [`read_status`] for the statuses this dialect can say).
pub fn status_body(job: &JobView) -> Value {
    let open = if is_content_policy(job) {
        OpenStatus::Nsfw
    } else {
        OpenStatus::from_status(job.status).unwrap_or(OpenStatus::Failed)
    };
    let mut j = Map::new();
    j.insert("id".into(), Value::from(job.id.as_str()));
    j.insert("status".into(), Value::from(open.as_str()));
    if let Some(e) = &job.error {
        j.insert("error".into(), e.as_value().clone());
    }
    json!({"data": {"request_id": job.id, "sume_status": open.as_str(), "job": Value::Object(j)}})
}

/// Builds an error envelope body (D-5), the request id both inside the error and beside it.
pub fn error_body(error: &ApiError, retryable: bool) -> Value {
    let mut e = Map::new();
    e.insert("code".into(), Value::from(error.code.as_str()));
    e.insert("message".into(), Value::from(error.message.as_str()));
    if let Some(d) = &error.details {
        e.insert("details".into(), d.as_value().clone());
    }
    if let Some(r) = &error.request_id {
        e.insert("request_id".into(), Value::from(r.as_str()));
    }
    e.insert("retryable".into(), Value::from(retryable));
    let mut body = Map::new();
    body.insert("error".into(), Value::Object(e));
    // The MCP job tools' readers take the request id beside the error.
    if let Some(r) = &error.request_id {
        body.insert("request_id".into(), Value::from(r.as_str()));
    }
    Value::Object(body)
}

impl core::fmt::Display for OpenStatus {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl core::fmt::Display for Kind {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which Open API request an answer belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum OpenRequest {
    /// The submit.
    Submit,
    /// `GET /v1/jobs/{id}/status`.
    Status,
    /// `GET /v1/jobs/{id}/result`.
    Result,
    /// `POST /v1/jobs/{id}/cancel`.
    Cancel,
}

crate::tagged::unit_enum!(
    OpenRequest,
    "enum OpenRequest",
    [
        (OpenRequest::Submit, "submit"),
        (OpenRequest::Status, "status"),
        (OpenRequest::Result, "result"),
        (OpenRequest::Cancel, "cancel"),
    ]
);

/// One HTTP answer to an Open API request, as a host (or a vector) hands it over.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OpenAnswer {
    /// Which request it answers.
    pub request: OpenRequest,
    /// The job id the request was about (unused for a submit).
    #[serde(default)]
    pub handle: String,
    /// The HTTP status; 0 when no answer arrived (a transport error or a local timeout).
    pub status: u16,
    /// Response headers, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub headers: Vec<(String, String)>,
    /// The body, when it was JSON.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<Value>,
}

// Read member by member (`tagged::in_order`): `request` and `status` required, the rest
// defaulted, other members skipped, the derived reader's messages.
impl<'de> Deserialize<'de> for OpenAnswer {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        const FIELDS: &[&str] = &["request", "handle", "status", "headers", "body"];
        let (mut request, mut status) = (None, None);
        let (mut handle, mut headers, mut body) = (String::new(), Vec::new(), None);
        crate::tagged::in_order(d, "struct OpenAnswer", FIELDS, &mut |i, v| {
            match i {
                0 => request = Some(Deserialize::deserialize(v)?),
                1 => handle = Deserialize::deserialize(v)?,
                2 => status = Some(Deserialize::deserialize(v)?),
                3 => headers = Deserialize::deserialize(v)?,
                _ => body = Deserialize::deserialize(v)?,
            }
            Ok(())
        })?;
        Ok(OpenAnswer {
            request: request.ok_or_else(|| serde::de::Error::missing_field("request"))?,
            handle,
            status: status.ok_or_else(|| serde::de::Error::missing_field("status"))?,
            headers,
            body,
        })
    }
}

/// The tracker input an Open API answer stands for (D-2), at host time `now_ms`:
///
/// * submit 2xx → [`Input::JobCreated`]; no answer (status 0) or a 5xx without the API's error
///   (a proxy's page) → [`Input::CreateUnanswered`], since the job may exist (A-6); a submit the
///   API refused made no job and is admission's business ([`advice`]), not the tracker's:
///   [`Error::InvalidInput`];
/// * status 2xx → [`Input::JobPolled`]; result 2xx → [`Input::JobPolled`] with the result;
/// * cancel: a retryable error (D-6) → [`Input::RequestFailed`] (send the same cancel again
///   after its delay), anything else → [`Input::CancelAnswered`] (D-9);
/// * any other error → [`Input::RequestFailed`] with [`failure`]; status 0 → a transport failure.
///
/// [`Input::JobCreated`]: crate::tracker::Input::JobCreated
/// [`Input::JobPolled`]: crate::tracker::Input::JobPolled
/// [`Input::RequestFailed`]: crate::tracker::Input::RequestFailed
/// [`Input::CancelAnswered`]: crate::tracker::Input::CancelAnswered
/// [`Input::CreateUnanswered`]: crate::tracker::Input::CreateUnanswered
pub fn answer_input(answer: &OpenAnswer, now_ms: u64) -> Result<crate::tracker::Input, Error> {
    use crate::tracker::{Input, RequestKind};
    let ok = (200..300).contains(&answer.status);
    let body = answer.body.as_ref().unwrap_or(&Value::Null);
    let kind = match answer.request {
        OpenRequest::Submit if ok => {
            return Ok(Input::JobCreated {
                job: read_submit(body)?,
            })
        }
        OpenRequest::Submit => {
            // No answer, or a page without the API's error (a proxy's 502): the job may exist
            // (A-6), so the create is unanswered, and goes again with its key (R-5).
            let apis = body.get("error").is_some_and(Value::is_object);
            if answer.status == 0 || (answer.status >= 500 && !apis) {
                return Ok(Input::CreateUnanswered);
            }
            return Err(Error::invalid_input(
                "request",
                "the API refused the submit: it made no job, and admission decides what follows (a new try with the same key, or none), not a tracker",
            ));
        }
        OpenRequest::Status if ok => {
            return Ok(Input::JobPolled {
                job: read_status(&answer.handle, body)?,
            })
        }
        OpenRequest::Result if ok => {
            return Ok(Input::JobPolled {
                job: read_result(&answer.handle, body)?,
            })
        }
        OpenRequest::Status | OpenRequest::Result => RequestKind::Get,
        OpenRequest::Cancel => RequestKind::Cancel,
    };
    if answer.status == 0 {
        return Ok(Input::RequestFailed {
            request: kind,
            failure: Failure::Transport,
        });
    }
    let error = read_error(answer.status, &answer.headers, answer.body.as_ref(), now_ms);
    if answer.request == OpenRequest::Cancel && (ok || !is_retryable(&error)) {
        return Ok(Input::CancelAnswered {
            answer: cancel_answer(answer.status, answer.body.as_ref())?,
        });
    }
    Ok(Input::RequestFailed {
        request: kind,
        failure: failure(&error),
    })
}
