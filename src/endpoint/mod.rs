//! The endpoint: where the wire meets the rules.
//!
//! A host hands the endpoint what arrived, exactly as it arrived, and sends what the endpoint
//! emits; the trackers decide, the endpoint only maps, once. [`client`] is one call end to end
//! ([`CallEndpoint`]); [`codec`] is the mapping between JSON-RPC messages and tracker inputs and
//! requests that it uses; [`observer`] reads both directions of a recorded exchange with the
//! same rules (`longcall check`).

pub mod client;
pub mod codec;
pub mod observer;
mod tagged_de;

pub use client::{
    CallEndpoint, Config, Event, HttpAnswer, JobDialect, JobRoutes, JobSubmit, Transmit,
    SUBMIT_TRIES,
};
pub use codec::{
    build_call, build_continuation, build_request, read_answer, read_notification, read_result,
    Asked, Built, ReadAnswer,
};
