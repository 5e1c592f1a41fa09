//! Cancellation: what a cancel button can honestly promise (area C of `docs/rules.md`).
//!
//! * [`window()`] ([`task_window`], [`job_window`] for typed statuses): may this call still be
//!   cancelled, given its last status?
//! * [`answer`]: what every cancel answer means, per model, as a table.
//! * [`button`]: the state of an honest cancel button.
//!
//! A client-side timeout is **not** a cancel: stopping watching a job does not stop the job.

pub mod answer;
pub mod button;
pub mod window;

pub use answer::{classify_answer, CancelAnswer, CancelVerdict, JobErrorCode};
pub use button::{ButtonState, CancelButton};
pub use window::{job_window, task_window, window, Window};
