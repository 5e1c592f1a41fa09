//! Reading [`Event`] and [`Transmit`] through [`crate::tagged`] instead of serde's derived
//! internally tagged support (the same JSON, far less WebAssembly).

use serde::{Deserialize, Deserializer};

use super::client::{Event, Transmit};
use crate::tagged::{read, unknown};

impl<'de> Deserialize<'de> for Transmit {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        const VARIANTS: &[&str] = &["rpc", "http"];
        let (tag, mut f) = read(d, "kind", "internally tagged enum Transmit")?;
        Ok(match tag.as_str() {
            "rpc" => Transmit::Rpc {
                id: f.req("id")?,
                text: f.req("text")?,
                headers: f.req("headers")?,
            },
            "http" => Transmit::Http {
                request_ref: f.req("request_ref")?,
                method: f.req("method")?,
                path: f.req("path")?,
                headers: f.req("headers")?,
                body: f.opt("body")?,
            },
            other => return Err(unknown(other, VARIANTS)),
        })
    }
}

impl<'de> Deserialize<'de> for Event {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        const VARIANTS: &[&str] = &[
            "transmit",
            "ask_user",
            "button",
            "status",
            "progress",
            "violation",
            "settled",
            "stopped",
            "request_failed",
            "recovered",
            "admission",
            "wake_at",
            "idle",
        ];
        let (tag, mut f) = read(d, "type", "internally tagged enum Event")?;
        Ok(match tag.as_str() {
            "transmit" => Event::Transmit(f.rest()?),
            "ask_user" => Event::AskUser {
                key: f.req("key")?,
                request: f.req("request")?,
                call: f.def("call")?,
            },
            "button" => Event::Button {
                state: f.req("state")?,
            },
            "status" => Event::Status {
                status: f.req("status")?,
            },
            "progress" => Event::Progress {
                message: f.req("message")?,
            },
            "violation" => Event::Violation {
                violation: f.req("violation")?,
            },
            "settled" => Event::Settled {
                outcome: f.req("outcome")?,
                status: f.opt("status")?,
                result: f.opt("result")?,
                error: f.opt("error")?,
            },
            "stopped" => Event::Stopped {
                reason: f.req("reason")?,
                failure: f.opt("failure")?,
            },
            "request_failed" => Event::RequestFailed {
                request: f.req("request")?,
                failure: f.req("failure")?,
            },
            "recovered" => Event::Recovered,
            "admission" => Event::Admission {
                advice: f.req("advice")?,
                http_status: f.req("http_status")?,
                request_id: f.opt("request_id")?,
            },
            "wake_at" => Event::WakeAt { at: f.req("at")? },
            "idle" => Event::Idle,
            other => return Err(unknown(other, VARIANTS)),
        })
    }
}
