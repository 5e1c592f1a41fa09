//! The endpoint: where the wire meets the rules.
//!
//! A host hands the endpoint what arrived, exactly as it arrived, and sends what the endpoint
//! emits; the trackers decide, the endpoint only maps, once. [`codec`] is the mapping between
//! JSON-RPC messages and tracker inputs and requests; [`observer`] reads both directions of a
//! recorded exchange with the same rules.

pub mod codec;
pub mod observer;

pub use codec::{
    build_call, build_request, read_answer, read_notification, Asked, Built, ReadAnswer,
};
