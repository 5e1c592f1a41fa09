//! Sume jobs on the wire (area J of `docs/rules.md`).
//!
//! * (J-1) A job object is `{id, status, ...}` with statuses `queued`, `processing` (public docs:
//!   `running`), `completed`, `failed`, `canceled`, `expired`; `result` and `error` when settled.
//! * A create answer is `{"object": "image_generation", "job": {"id": "job_...", "status":
//!   "queued"}}`, or `{"object": ..., "jobs": [job, ...]}` for a batch submit.
//! * (J-2) An error is the envelope `{"error": {"code", "message", "details"}, "request_id"}` with
//!   its HTTP status, read into [`ApiError`].
//! * (J-3) `jobs_cancel {job_id, idempotency_key}`: 200 with the (canceled) job, or an error
//!   envelope (409 `job_generation_already_started` with `details.cancelable: false`, 409
//!   `job_not_cancelable`, 404 `not_found`); see [`cancel_answer`].
//! * `Retry-After` (seconds or an HTTP date) → ms: [`retry_after_ms`].
//!
//! ## The `jobs_wait` answer (J-4; our choice: the job API fixes only the request)
//!
//! Request: `{"job_ids": ["job_a", ...] (1 to 20), "wait_for": "all" | "any",
//! "timeout_seconds": 50 (optional), "include_results": true}`.
//!
//! Answer: `{"jobs": [job, ...], "timed_out": bool}`: one job object per requested id in the
//! state the server last saw, results included when asked for. `timed_out: true` means the wait
//! ended before its condition held; the jobs are then a **partial snapshot**, not an error (an
//! absent `timed_out` reads as `false`). Ids the caller may not see come back as a 404 envelope
//! for the whole call, never as missing entries.

use alloc::borrow::Cow;
use alloc::string::String;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use super::limits::malformed;
use crate::cancel::CancelAnswer;
use crate::error::Error;
use crate::job_vocab::JobErrorCode;
use crate::model::Model;
use crate::status::Status;
use crate::view::{ApiError, JobView};
use crate::Json;

pub use crate::time::parse_retry_after_ms as retry_after_ms;

pub use crate::job_vocab::{WaitFor, MAX_WAIT_IDS};

/// A job as written on the wire. Exact: unknown members are kept in `extra`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Job {
    /// `id`.
    pub id: String,
    /// `status`, as written.
    pub status: String,
    /// `result`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    /// `error`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<Value>,
    /// Every other member, kept as received.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A job object as written. (The derived reader is the tests' reference for [`read_job`].)
#[cfg_attr(test, derive(Deserialize))]
struct RawJob<'a> {
    #[cfg_attr(test, serde(borrow))]
    id: Cow<'a, str>,
    #[cfg_attr(test, serde(borrow))]
    status: Cow<'a, str>,
    #[cfg_attr(test, serde(default))]
    result: Option<Value>,
    #[cfg_attr(test, serde(default))]
    error: Option<Value>,
}

/// Reads a job object. An unknown status is [`Error::UnknownStatus`] carrying the raw text.
///
/// ```
/// use longcall::wire::sume;
/// use longcall::Status;
/// let j = sume::read_job(&serde_json::json!({"id":"job_1","status":"running"})).unwrap();
/// assert_eq!(j.status, Status::Running);
/// assert_eq!(sume::read_job(&serde_json::json!({"id":"job_1","status":"pending"})).unwrap_err().code(), "unknown_status");
/// ```
pub fn read_job(value: &Value) -> Result<JobView, Error> {
    let raw = raw_job(value).map_err(|e| malformed("job", &e))?;
    Ok(JobView {
        id: raw.id.into_owned(),
        status: Status::parse(Model::Job, &raw.status)?,
        result: raw.result.map(Json::from),
        error: raw.error.map(Json::from),
    })
}

/// Reads a job object member by member, as serde's derived reader does (in the map's order, a
/// bad member before a missing one, in serde's words), without compiling serde's struct reader.
fn raw_job(value: &Value) -> Result<RawJob<'_>, serde_json::Error> {
    use serde::de::Error as _;
    let Some(members) = value.as_object() else {
        return Err(serde_json::Error::invalid_type(
            crate::tagged::unexpected(value),
            &"struct RawJob",
        ));
    };
    let (mut id, mut status, mut result, mut error) = (None, None, None, None);
    for (key, v) in members {
        match key.as_str() {
            "id" => id = Some(Cow::<str>::deserialize(v)?),
            "status" => status = Some(Cow::<str>::deserialize(v)?),
            "result" => result = (!v.is_null()).then(|| v.clone()),
            "error" => error = (!v.is_null()).then(|| v.clone()),
            _ => {}
        }
    }
    Ok(RawJob {
        id: id.ok_or_else(|| serde_json::Error::missing_field("id"))?,
        status: status.ok_or_else(|| serde_json::Error::missing_field("status"))?,
        result,
        error,
    })
}

fn read_jobs(value: &Value, what: &'static str) -> Result<Vec<JobView>, Error> {
    let arr = value.as_array().ok_or_else(|| Error::Malformed {
        what,
        reason: "jobs must be an array".into(),
    })?;
    arr.iter().map(read_job).collect()
}

/// A create answer: the kind of object and the jobs it queued.
#[derive(Clone, Debug, PartialEq)]
pub struct CreateAnswer {
    /// `object`, e.g. `image_generation`.
    pub object: Option<String>,
    /// The job (or jobs) created; usually `queued`.
    pub jobs: Vec<JobView>,
}

/// Reads a create answer: `{object, job}`, `{object, jobs: [...]}`, or a bare job.
pub fn read_create(body: &Value) -> Result<CreateAnswer, Error> {
    let object = body.get("object").and_then(Value::as_str).map(String::from);
    let jobs = if let Some(job) = body.get("job") {
        alloc::vec![read_job(job)?]
    } else if let Some(jobs) = body.get("jobs") {
        read_jobs(jobs, "create answer")?
    } else if body.get("id").is_some() {
        alloc::vec![read_job(body)?]
    } else {
        return Err(Error::Malformed {
            what: "create answer",
            reason: "neither job, jobs nor a job object".into(),
        });
    };
    Ok(CreateAnswer { object, jobs })
}

/// Reads an error envelope `{error: {code, message, details}, request_id}` sent with
/// `http_status`.
///
/// ```
/// use longcall::wire::sume;
/// let body = serde_json::json!({"error":{"code":"job_generation_already_started",
///   "message":"Generation has started","details":{"cancelable":false}},"request_id":"req_1"});
/// let e = sume::read_error(409, &body).unwrap();
/// assert_eq!(e.code, "job_generation_already_started");
/// assert_eq!(e.request_id.as_deref(), Some("req_1"));
/// ```
pub fn read_error(http_status: u16, body: &Value) -> Result<ApiError, Error> {
    let bad = |reason: &str| Error::Malformed {
        what: "error envelope",
        reason: reason.into(),
    };
    let err = body
        .get("error")
        .filter(|e| e.is_object())
        .ok_or_else(|| bad("missing error object"))?;
    let code = err
        .get("code")
        .and_then(Value::as_str)
        .ok_or_else(|| bad("error.code must be a string"))?;
    Ok(ApiError {
        http_status,
        code: code.into(),
        message: err
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .into(),
        details: err.get("details").cloned().map(Json::from),
        request_id: body
            .get("request_id")
            .and_then(Value::as_str)
            .map(String::from),
    })
}

/// Maps a `jobs_cancel` answer (HTTP status and body, `None` when there was no JSON body) into a
/// [`CancelAnswer`]: 2xx with the job (bare or under `job`) is [`CancelAnswer::Job`]; anything
/// else is [`CancelAnswer::JobError`] (an error without a readable envelope has code `Other`).
///
/// ```
/// use longcall::cancel::{CancelAnswer, JobErrorCode};
/// use longcall::wire::sume;
/// let body = serde_json::json!({"error":{"code":"job_generation_already_started",
///   "message":"started","details":{"cancelable":false}},"request_id":"req_1"});
/// assert_eq!(sume::cancel_answer(409, Some(&body)).unwrap(), CancelAnswer::JobError {
///     http_status: 409, code: JobErrorCode::JobGenerationAlreadyStarted, cancelable: Some(false) });
/// ```
pub fn cancel_answer(http_status: u16, body: Option<&Value>) -> Result<CancelAnswer, Error> {
    if (200..300).contains(&http_status) {
        let body = body.ok_or_else(|| Error::Malformed {
            what: "jobs_cancel answer",
            reason: "a success without a job".into(),
        })?;
        let job = read_job(body.get("job").unwrap_or(body))?;
        return Ok(CancelAnswer::Job {
            status: job.status.expect_job()?,
        });
    }
    match body.map(|b| read_error(http_status, b)) {
        Some(Ok(e)) => Ok(CancelAnswer::JobError {
            http_status,
            code: JobErrorCode::parse(&e.code),
            cancelable: e
                .details
                .as_ref()
                .and_then(|d| d.get("cancelable"))
                .and_then(Value::as_bool),
        }),
        _ => Ok(CancelAnswer::JobError {
            http_status,
            code: JobErrorCode::Other,
            cancelable: None,
        }),
    }
}

/// A `jobs_wait` answer (see the module docs for the shape).
#[derive(Clone, Debug, PartialEq)]
pub struct WaitAnswer {
    /// The jobs as last seen.
    pub jobs: Vec<JobView>,
    /// The wait ended before its condition held: a partial snapshot, not an error.
    pub timed_out: bool,
}

/// Reads a `jobs_wait` answer `{jobs: [...], timed_out?}`.
pub fn read_wait(body: &Value) -> Result<WaitAnswer, Error> {
    let jobs = body.get("jobs").ok_or_else(|| Error::Malformed {
        what: "jobs_wait answer",
        reason: "missing jobs".into(),
    })?;
    let timed_out = match body.get("timed_out") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => {
            return Err(Error::Malformed {
                what: "jobs_wait answer",
                reason: "timed_out must be a boolean".into(),
            })
        }
    };
    Ok(WaitAnswer {
        jobs: read_jobs(jobs, "jobs_wait answer")?,
        timed_out,
    })
}

fn check_id(id: &str, field: &str) -> Result<(), Error> {
    if id.is_empty() {
        Err(Error::invalid_input(field, "empty id"))
    } else {
        Ok(())
    }
}

/// `jobs_get {job_id}`.
pub fn get_request(job_id: &str) -> Result<Value, Error> {
    check_id(job_id, "job_id")?;
    Ok(json!({ "job_id": job_id }))
}

/// `jobs_cancel {job_id, idempotency_key}` (the cancel takes its own idempotency key).
pub fn cancel_request(job_id: &str, idempotency_key: &str) -> Result<Value, Error> {
    check_id(job_id, "job_id")?;
    check_id(idempotency_key, "idempotency_key")?;
    Ok(json!({ "job_id": job_id, "idempotency_key": idempotency_key }))
}

/// `jobs_wait {job_ids, wait_for, timeout_seconds?, include_results}` for 1 to 20 ids.
///
/// ```
/// use longcall::wire::sume::{wait_request, WaitFor};
/// let v = wait_request(&["job_a", "job_b", "job_c"], WaitFor::All, Some(50), true).unwrap();
/// assert_eq!(v.to_string(),
///   r#"{"include_results":true,"job_ids":["job_a","job_b","job_c"],"timeout_seconds":50,"wait_for":"all"}"#);
/// assert!(wait_request(&[], WaitFor::Any, None, false).is_err());
/// ```
pub fn wait_request(
    job_ids: &[&str],
    wait_for: WaitFor,
    timeout_seconds: Option<u32>,
    include_results: bool,
) -> Result<Value, Error> {
    if job_ids.is_empty() || job_ids.len() > MAX_WAIT_IDS {
        return Err(Error::invalid_input("job_ids", "1 to 20 ids per jobs_wait"));
    }
    for id in job_ids {
        check_id(id, "job_ids")?;
    }
    let mut obj = Map::new();
    obj.insert("job_ids".into(), json!(job_ids));
    obj.insert("wait_for".into(), Value::from(wait_for.as_str()));
    if let Some(t) = timeout_seconds {
        obj.insert("timeout_seconds".into(), Value::from(t));
    }
    obj.insert("include_results".into(), Value::from(include_results));
    Ok(Value::Object(obj))
}

#[cfg(test)]
mod tests {
    use alloc::format;
    use alloc::string::ToString;

    use super::*;

    /// A job object is read as the derived reader reads it: the same job, the same first error.
    #[test]
    fn jobs_read_as_derived() {
        for v in [
            json!({"id": "j", "status": "running", "result": {"a": 1}, "error": null, "x": 1}),
            json!({"id": "j", "status": "queued", "error": {"code": "c"}}),
            json!({"id": "j"}),
            json!({"status": "queued"}),
            json!({}),
            json!({"id": 1, "status": 2}),
            json!({"status": 2}),
            json!({"id": "a\"b", "status": null}),
            json!("j"),
            json!(null),
        ] {
            let show = |r: Result<RawJob<'_>, serde_json::Error>| match r {
                Ok(j) => format!("{:?}", (j.id, j.status, j.result, j.error)),
                Err(e) => e.to_string(),
            };
            assert_eq!(show(raw_job(&v)), show(RawJob::deserialize(&v)), "{v}");
        }
    }
}
