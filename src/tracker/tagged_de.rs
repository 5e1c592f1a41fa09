//! Reading [`Output`], [`Request`] and [`Failure`] through [`crate::tagged`] instead of serde's
//! derived internally tagged support (the same JSON, far less WebAssembly).

use serde::{Deserialize, Deserializer};

use super::{Failure, Output, Request};
use crate::tagged::{read, unknown};

impl<'de> Deserialize<'de> for Output {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        const VARIANTS: &[&str] = &[
            "send",
            "ask_user",
            "button",
            "status",
            "violation",
            "settled",
            "stopped",
            "wake_at",
            "idle",
        ];
        let (tag, mut f) = read(d, "type", "internally tagged enum Output")?;
        Ok(match tag.as_str() {
            "send" => Output::Send {
                request: f.req("request")?,
            },
            "ask_user" => Output::AskUser {
                key: f.req("key")?,
                request: f.req("request")?,
                call: f.def("call")?,
            },
            "button" => Output::Button {
                state: f.req("state")?,
            },
            "status" => Output::Status {
                status: f.req("status")?,
            },
            "violation" => Output::Violation {
                violation: f.req("violation")?,
            },
            "settled" => Output::Settled {
                outcome: f.req("outcome")?,
                status: f.opt("status")?,
                result: f.opt("result")?,
                error: f.opt("error")?,
            },
            "stopped" => Output::Stopped {
                reason: f.req("reason")?,
            },
            "wake_at" => Output::WakeAt { at: f.req("at")? },
            "idle" => Output::Idle,
            other => return Err(unknown(other, VARIANTS)),
        })
    }
}

impl<'de> Deserialize<'de> for Request {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        const VARIANTS: &[&str] = &["get", "cancel", "update", "fetch_result", "continue_call"];
        let (tag, mut f) = read(d, "kind", "internally tagged enum Request")?;
        Ok(match tag.as_str() {
            "get" => Request::Get {
                handle: f.req("handle")?,
            },
            "cancel" => Request::Cancel {
                handle: f.req("handle")?,
                idempotency_key: f.opt("idempotency_key")?,
            },
            "update" => Request::Update {
                handle: f.req("handle")?,
                responses: f.req("responses")?,
            },
            "fetch_result" => Request::FetchResult {
                handle: f.req("handle")?,
            },
            "continue_call" => Request::ContinueCall {
                responses: f.req("responses")?,
                request_state: f.opt("request_state")?,
            },
            other => return Err(unknown(other, VARIANTS)),
        })
    }
}

impl<'de> Deserialize<'de> for Failure {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        const VARIANTS: &[&str] = &["rpc", "http", "transport"];
        let (tag, mut f) = read(d, "kind", "internally tagged enum Failure")?;
        Ok(match tag.as_str() {
            "rpc" => Failure::Rpc {
                error: f.req("error")?,
            },
            "http" => Failure::Http {
                status: f.req("status")?,
                code: f.opt("code")?,
                retry_after_ms: f.opt("retry_after_ms")?,
            },
            "transport" => Failure::Transport,
            other => return Err(unknown(other, VARIANTS)),
        })
    }
}
