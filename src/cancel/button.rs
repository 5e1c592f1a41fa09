//! An honest cancel button: its state comes from the model, the last observed status, and what
//! happened to the cancel request, never from hope.
//!
//! Rules (C-14, C-15, C-16 of `docs/rules.md`):
//!
//! * Before the handle is known the button is `unavailable`.
//! * Not pressed: a call inside its cancel window shows `available`; a job whose generation started
//!   shows `too_late`; a terminal call shows `not_applicable`.
//! * Pressing is allowed only when `available`; it moves to `requesting` and the host sends the
//!   cancel. In any other state a press is a typed refusal and nothing goes on the wire.
//! * The answer moves it on: 2026 ack → `acknowledged_pending` (not a promise); cancelled →
//!   `cancelled`; 409 started → `too_late`; already terminal → `finished_first`; unknown handle →
//!   `unavailable`; a failed request → back to `available`; an ambiguous or rule-breaking answer
//!   stays `requesting` until an observation decides (C-20): a terminal status as below, a status
//!   still in the window reopens it (`available`), a started job shows `too_late`.
//! * Observations settle it once pressed: a cancelled status → `cancelled`; any other terminal
//!   status → `finished_first` (the call finished before the cancel took effect). A cancelled
//!   status seen while still `requesting` (its answer lost) shows `cancelled` too (C-19).
//! * An answer is taken only while a cancel request is waiting for one (pressed, not yet
//!   answered): an answer to a cancel the button did not send is refused with `invalid_input`
//!   and changes nothing (C-21), so a host bug cannot make it show `cancelled`.
//! * `cancelled`, `finished_first` and `not_applicable` are final for the button.
//! * "Cancelled" is shown only once a cancelled status was observed (or the 2025/job answer itself
//!   carried it).
//! * A cancel that was sent but failed (its answer lost, or an error) reopens the button, yet it
//!   may have taken effect: a cancelled status observed afterwards shows `cancelled`, not
//!   `not_applicable`.

use serde::{Deserialize, Serialize};

use super::answer::CancelVerdict;
use super::window::{window, Window};
use crate::error::Error;
use crate::model::Model;
use crate::snapshot::Snapshot;
use crate::status::Status;

/// What the button shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ButtonState {
    /// No handle yet, the handle no longer resolves, or the tracker stopped watching (C-17):
    /// nothing can be pressed.
    Unavailable = 0,
    /// Press it: a cancel can be sent now.
    Available = 1,
    /// Sent; no answer yet.
    Requesting = 2,
    /// 2026: the server acknowledged; the task has not settled yet and may still finish.
    AcknowledgedPending = 3,
    /// Job: generation started; it runs to completion and bills.
    TooLate = 4,
    /// A cancelled status was observed.
    Cancelled = 5,
    /// Pressed, but the call settled as completed or failed before the cancel took effect.
    FinishedFirst = 6,
    /// Already terminal before anyone pressed.
    NotApplicable = 7,
}

impl core::fmt::Display for ButtonState {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.as_str())
    }
}

crate::tagged::unit_enum!(
    ButtonState,
    "enum ButtonState",
    &ButtonState::ALL,
    ButtonState::as_str
);

impl ButtonState {
    /// Every state, in code order.
    pub const ALL: [ButtonState; 8] = [
        ButtonState::Unavailable,
        ButtonState::Available,
        ButtonState::Requesting,
        ButtonState::AcknowledgedPending,
        ButtonState::TooLate,
        ButtonState::Cancelled,
        ButtonState::FinishedFirst,
        ButtonState::NotApplicable,
    ];

    /// The stable name.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            ButtonState::Unavailable => "unavailable",
            ButtonState::Available => "available",
            ButtonState::Requesting => "requesting",
            ButtonState::AcknowledgedPending => "acknowledged_pending",
            ButtonState::TooLate => "too_late",
            ButtonState::Cancelled => "cancelled",
            ButtonState::FinishedFirst => "finished_first",
            ButtonState::NotApplicable => "not_applicable",
        }
    }

    /// The numeric code used by the numbers-only WebAssembly path.
    #[must_use]
    pub const fn code(self) -> u8 {
        self as u8
    }

    /// True for the states the button never leaves.
    #[must_use]
    pub const fn is_final(self) -> bool {
        matches!(
            self,
            ButtonState::Cancelled | ButtonState::FinishedFirst | ButtonState::NotApplicable
        )
    }

    /// Why a press does nothing in this state (`None` when a press is allowed).
    #[must_use]
    pub const fn refusal(self) -> Option<&'static str> {
        match self {
            ButtonState::Available => None,
            ButtonState::Unavailable => Some("there is no handle to cancel"),
            ButtonState::Requesting => Some("a cancel request is already on its way"),
            ButtonState::AcknowledgedPending => {
                Some("the server acknowledged the cancel; the task has not settled yet")
            }
            ButtonState::TooLate => {
                Some("generation already started: the job runs to completion and bills")
            }
            ButtonState::Cancelled => Some("the call is already cancelled"),
            ButtonState::FinishedFirst => Some("the call finished before the cancel took effect"),
            ButtonState::NotApplicable => Some("the call had already finished"),
        }
    }
}

/// The cancel button of one call.
///
/// ```
/// use longcall::cancel::{ButtonState, CancelButton, CancelVerdict};
/// use longcall::{Model, Status};
/// let mut b = CancelButton::new(Model::Job);
/// b.handle_status(Status::Queued).unwrap();
/// assert_eq!(b.state(), ButtonState::Available);
/// b.press().unwrap(); // now send jobs_cancel
/// b.handle_verdict(CancelVerdict::TooLate).unwrap(); // 409 job_generation_already_started
/// assert_eq!(b.state(), ButtonState::TooLate);
/// // An answer nobody asked for (the cancel was answered already) is refused.
/// assert_eq!(b.handle_verdict(CancelVerdict::Cancelled).unwrap_err().code(), "invalid_input");
/// assert_eq!(b.press().unwrap_err().code(), "cancel_refused");
/// b.handle_status(Status::Completed).unwrap();
/// assert_eq!(b.state(), ButtonState::FinishedFirst);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CancelButton {
    model: Model,
    state: ButtonState,
    last_status: Option<Status>,
    pressed: bool,
    /// A cancel request went out at least once. Its answer may have been lost on the way back
    /// while the cancel took effect, so a cancelled status observed later shows `cancelled`
    /// even after the button reopened.
    sent: bool,
    /// The cancel was answered, and the answer left it to the next observation (C-20): a status
    /// then decides even when it is not terminal. (Written only when set, so a snapshot taken
    /// without it reads the same.)
    undecided: bool,
    /// The cancel request is out and its answer has not come (C-21).
    awaiting: bool,
}

impl CancelButton {
    /// Whether a request is out, as the state alone tells it: `requesting` with no answer yet.
    /// A snapshot writes `awaiting` only where it says otherwise (the handle was lost, or a
    /// terminal status came, while the request was out), so snapshots written before the field
    /// existed restore, and save again, unchanged (S-4).
    fn awaiting_by_state(&self) -> bool {
        self.state == ButtonState::Requesting && !self.undecided
    }
}

impl Serialize for CancelButton {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let awaiting = self.awaiting != self.awaiting_by_state();
        let n = 5 + usize::from(self.undecided) + usize::from(awaiting);
        let mut st = s.serialize_struct("CancelButton", n)?;
        st.serialize_field("model", &self.model)?;
        st.serialize_field("state", &self.state)?;
        st.serialize_field("last_status", &self.last_status)?;
        st.serialize_field("pressed", &self.pressed)?;
        st.serialize_field("sent", &self.sent)?;
        if self.undecided {
            st.serialize_field("undecided", &true)?;
        }
        if awaiting {
            st.serialize_field("awaiting", &self.awaiting)?;
        }
        st.end()
    }
}

/// Why an answer is refused when no cancel request is out (the tracker says the same).
pub(crate) const NO_CANCEL_OUT: &str = "no cancel request is waiting for an answer";

// Read member by member from a `Value` object (`crate::tagged`): a derived reader would also
// compile an array form nobody writes.
impl<'de> Deserialize<'de> for CancelButton {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut f = crate::tagged::members(d, "struct CancelButton")?;
        let mut b = CancelButton {
            model: f.req("model")?,
            state: f.req("state")?,
            last_status: f.opt("last_status")?,
            pressed: f.req("pressed")?,
            sent: f.def("sent")?,
            undecided: f.def("undecided")?,
            awaiting: false,
        };
        b.awaiting = f.opt("awaiting")?.unwrap_or(b.awaiting_by_state());
        b.check().map_err(serde::de::Error::custom)?;
        Ok(b)
    }
}

impl CancelButton {
    /// What every button that ran holds (S-7), checked on restore so an edited snapshot cannot make it
    /// say what no sequence of inputs could: a press always sends, so `pressed`, a request out
    /// or answered (`requesting`, `acknowledged_pending`) and `cancelled` all need `sent`.
    fn check(&self) -> Result<(), &'static str> {
        if let Some(s) = self.last_status {
            if window(self.model, s).is_err() {
                return Err("last_status is not a status of the model");
            }
        }
        let needs_press = matches!(
            self.state,
            ButtonState::Requesting | ButtonState::AcknowledgedPending
        );
        if needs_press && !self.pressed {
            return Err("the state is requesting or acknowledged_pending, but nothing was pressed");
        }
        let needs_sent =
            self.pressed || self.awaiting || self.undecided || self.state == ButtonState::Cancelled;
        if needs_sent && !self.sent {
            return Err("pressed, waiting for an answer or cancelled, but no cancel was sent");
        }
        Ok(())
    }
}

impl Snapshot for CancelButton {
    const KIND: &'static str = "cancel_button";
}

impl CancelButton {
    /// A button for a call whose handle is not known yet.
    #[must_use]
    pub const fn new(model: Model) -> CancelButton {
        CancelButton {
            model,
            state: ButtonState::Unavailable,
            last_status: None,
            pressed: false,
            sent: false,
            undecided: false,
            awaiting: false,
        }
    }

    /// What the button shows now.
    #[must_use]
    pub const fn state(&self) -> ButtonState {
        self.state
    }

    /// The model.
    #[must_use]
    pub const fn model(&self) -> Model {
        self.model
    }

    /// Whether it was pressed (and the press went on the wire).
    #[must_use]
    pub const fn pressed(&self) -> bool {
        self.pressed
    }

    /// Whether a cancel request is out and waiting for its answer: [`handle_verdict`] takes
    /// an answer only then.
    ///
    /// [`handle_verdict`]: CancelButton::handle_verdict
    #[must_use]
    pub const fn awaiting_answer(&self) -> bool {
        self.awaiting
    }

    /// The last status observed.
    #[must_use]
    pub const fn last_status(&self) -> Option<Status> {
        self.last_status
    }

    /// An observation of the call's status. Call it for every status seen (answers to polls,
    /// notifications, a 2025 cancel answer). Returns the new state.
    pub fn handle_status(&mut self, status: Status) -> Result<ButtonState, Error> {
        let win = window(self.model, status)?;
        if self.last_status.is_some_and(|s| s.is_terminal()) {
            // The first terminal status stands; later ones are the tracker's conflict to report.
            return Ok(self.state);
        }
        self.last_status = Some(status);
        // C-23: `finished_first` here came from an answer (a 409 `job_not_cancelable`), before
        // any terminal status was seen; the first one decides. Cancelled, an earlier press whose
        // answer was lost took effect: the call did not run to its end and bills nothing.
        if self.state.is_final()
            && !(self.state == ButtonState::FinishedFirst && status.is_cancelled())
        {
            return Ok(self.state);
        }
        if core::mem::take(&mut self.undecided) && win != Window::Terminal {
            // C-20: the answer decided nothing; this status does. Still open, the cancel did not
            // take and may be pressed again; started, it is too late, as after a 409 (and the
            // press stands, so the end shows `finished_first`).
            self.state = match win {
                Window::Open => self.reopen(),
                _ => ButtonState::TooLate,
            };
            return Ok(self.state);
        }
        self.state = match (self.pressed, win) {
            (_, Window::Terminal) if !(self.pressed || self.sent && status.is_cancelled()) => {
                ButtonState::NotApplicable
            }
            (_, Window::Terminal) if status.is_cancelled() => ButtonState::Cancelled,
            (_, Window::Terminal) => ButtonState::FinishedFirst,
            (false, Window::Open) => ButtonState::Available,
            (false, Window::Started) => ButtonState::TooLate,
            // Pressed and still running: the answer (or its absence) decides.
            (true, Window::Started) if self.state == ButtonState::Available => ButtonState::TooLate,
            (true, _) => self.state,
        };
        Ok(self.state)
    }

    /// The user pressed the button. `Ok` means: send the cancel request now (the button shows
    /// `requesting`). Any other state is a typed refusal and nothing must go on the wire.
    pub fn press(&mut self) -> Result<(), Error> {
        match self.state.refusal() {
            None => {
                self.state = ButtonState::Requesting;
                self.pressed = true;
                self.sent = true;
                self.awaiting = true;
                Ok(())
            }
            Some(reason) => Err(Error::CancelRefused {
                state: self.state,
                reason,
            }),
        }
    }

    /// The cancel request was answered. Returns the new state.
    ///
    /// Only while a request is out ([`awaiting_answer`]): an answer to a cancel this button did
    /// not send (never pressed, or answered already) is an `invalid_input` error and changes
    /// nothing (C-21). An answer that arrives after a terminal status settled the button is
    /// taken and changes nothing either: the answer and the status raced.
    ///
    /// [`awaiting_answer`]: CancelButton::awaiting_answer
    pub fn handle_verdict(&mut self, verdict: CancelVerdict) -> Result<ButtonState, Error> {
        if !core::mem::take(&mut self.awaiting) {
            return Err(Error::invalid_input("verdict", NO_CANCEL_OUT));
        }
        if self.state.is_final() {
            return Ok(self.state);
        }
        // C-4, C-10: an id the server says it does not know is also left to the next status:
        // one still in the window (the task or job is there after all) reopens the button.
        self.undecided = matches!(
            verdict,
            CancelVerdict::Rejected | CancelVerdict::BreaksRevision | CancelVerdict::NotFound
        );
        self.state = match verdict {
            CancelVerdict::Acknowledged => ButtonState::AcknowledgedPending,
            CancelVerdict::Cancelled => ButtonState::Cancelled,
            CancelVerdict::TooLate => ButtonState::TooLate,
            CancelVerdict::AlreadyFinished => ButtonState::FinishedFirst,
            CancelVerdict::NotFound => ButtonState::Unavailable,
            CancelVerdict::RequestFailed => self.reopen(),
            CancelVerdict::Rejected | CancelVerdict::BreaksRevision => ButtonState::Requesting,
        };
        Ok(self.state)
    }

    /// The handle no longer resolves (`-32602` on a poll, 404, TTL passed unsettled).
    pub fn handle_lost(&mut self) -> ButtonState {
        if !self.state.is_final() {
            self.state = ButtonState::Unavailable;
        }
        self.state
    }

    // A cancel that did not take effect can be tried again if the window is still open.
    fn reopen(&mut self) -> ButtonState {
        self.pressed = false;
        match self.last_status.map(|s| window(self.model, s)) {
            Some(Ok(Window::Open)) => ButtonState::Available,
            Some(Ok(Window::Started)) => ButtonState::TooLate,
            Some(Ok(Window::Terminal)) => ButtonState::NotApplicable,
            _ => ButtonState::Unavailable,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ButtonState as B;

    /// C-23: a press whose answer was lost cancelled the job; the press again is answered 409
    /// `job_not_cancelable` (`finished_first`), and the first terminal status, `canceled`,
    /// decides: `cancelled`. Once a terminal status was seen, nothing changes the button.
    #[test]
    fn finished_first_from_an_answer_gives_way_to_a_cancelled_status() {
        let mut b = CancelButton::new(Model::Job);
        b.handle_status(Status::Queued).unwrap();
        b.press().unwrap();
        assert_eq!(
            b.handle_verdict(CancelVerdict::RequestFailed).unwrap(),
            B::Available
        );
        b.press().unwrap();
        let first = b.handle_verdict(CancelVerdict::AlreadyFinished).unwrap();
        assert_eq!(first, B::FinishedFirst);
        assert_eq!(b.handle_status(Status::Canceled).unwrap(), B::Cancelled);
        assert_eq!(b.handle_status(Status::Completed).unwrap(), B::Cancelled);
        // Seen terminal first, `finished_first` stands.
        let mut b = CancelButton::new(Model::Job);
        b.handle_status(Status::Queued).unwrap();
        b.press().unwrap();
        b.handle_status(Status::Completed).unwrap();
        assert_eq!(b.handle_status(Status::Canceled).unwrap(), B::FinishedFirst);
    }

    /// C-4, C-10: a cancel answered "unknown id" (`-32602`, a job's 404) while the task or job is
    /// still there: the next status in the window makes the button available again.
    #[test]
    fn an_unknown_id_answer_is_decided_by_the_next_status() {
        for (model, open, started) in [
            (Model::Task2026, Status::Working, None),
            (Model::Job, Status::Queued, Some(Status::Processing)),
        ] {
            let mut b = CancelButton::new(model);
            b.handle_status(open).unwrap();
            b.press().unwrap();
            assert_eq!(
                b.handle_verdict(CancelVerdict::NotFound).unwrap(),
                B::Unavailable
            );
            assert_eq!(b.handle_status(open).unwrap(), B::Available, "{model:?}");
            b.press().unwrap();
            b.handle_verdict(CancelVerdict::NotFound).unwrap();
            if let Some(started) = started {
                assert_eq!(b.handle_status(started).unwrap(), B::TooLate);
            }
        }
    }

    #[test]
    fn no_press_follows_the_window() {
        for model in Model::ALL {
            for &s in Status::of(model) {
                let mut b = CancelButton::new(model);
                assert_eq!(b.state(), B::Unavailable);
                let got = b.handle_status(s).unwrap();
                let want = match window(model, s).unwrap() {
                    Window::Open => B::Available,
                    Window::Started => B::TooLate,
                    Window::Terminal => B::NotApplicable,
                };
                assert_eq!(got, want, "{model} {s}");
            }
        }
    }

    #[test]
    fn refusals_never_change_state() {
        for state in ButtonState::ALL {
            let mut b = CancelButton {
                model: Model::Job,
                state,
                last_status: None,
                pressed: false,
                sent: false,
                undecided: false,
                awaiting: false,
            };
            let r = b.press();
            assert_eq!(r.is_ok(), state == B::Available);
            if let Err(e) = r {
                assert_eq!(b.state(), state);
                assert_eq!(e.code(), "cancel_refused");
            }
        }
    }

    #[test]
    fn task_2026_ack_is_not_a_promise() {
        let mut b = CancelButton::new(Model::Task2026);
        b.handle_status(Status::Working).unwrap();
        b.press().unwrap();
        assert_eq!(
            b.handle_verdict(CancelVerdict::Acknowledged).unwrap(),
            B::AcknowledgedPending
        );
        assert_eq!(
            b.handle_status(Status::Working).unwrap(),
            B::AcknowledgedPending
        );
        assert_eq!(
            b.handle_status(Status::Completed).unwrap(),
            B::FinishedFirst
        );
        // A later different terminal status does not flip it.
        assert_eq!(
            b.handle_status(Status::Cancelled).unwrap(),
            B::FinishedFirst
        );
    }

    #[test]
    fn cancelled_only_after_cancelled_status() {
        let mut b = CancelButton::new(Model::Task2026);
        b.handle_status(Status::InputRequired).unwrap();
        b.press().unwrap();
        b.handle_verdict(CancelVerdict::Acknowledged).unwrap();
        assert_ne!(b.state(), B::Cancelled);
        assert_eq!(b.handle_status(Status::Cancelled).unwrap(), B::Cancelled);
    }

    /// Rules C-20: an answer that decided nothing leaves the button `requesting` only until
    /// the next status: still in the window, it can be pressed again; a started job is too late;
    /// a terminal status settles it as usual. A status before any answer decides nothing.
    #[test]
    fn an_undecided_answer_is_decided_by_the_next_status() {
        for (model, verdict, next, want) in [
            (
                Model::Job,
                CancelVerdict::BreaksRevision,
                Status::Processing,
                B::TooLate,
            ),
            (
                Model::Job,
                CancelVerdict::BreaksRevision,
                Status::Queued,
                B::Available,
            ),
            (
                Model::Job,
                CancelVerdict::BreaksRevision,
                Status::Canceled,
                B::Cancelled,
            ),
            (
                Model::Task2025,
                CancelVerdict::Rejected,
                Status::Working,
                B::Available,
            ),
            (
                Model::Task2025,
                CancelVerdict::Rejected,
                Status::Completed,
                B::FinishedFirst,
            ),
            (
                Model::Task2026,
                CancelVerdict::BreaksRevision,
                Status::InputRequired,
                B::Available,
            ),
        ] {
            let open = if model == Model::Job {
                Status::Queued
            } else {
                Status::Working
            };
            let mut b = CancelButton::new(model);
            b.handle_status(open).unwrap();
            b.press().unwrap();
            assert_eq!(
                b.handle_status(open).unwrap(),
                B::Requesting,
                "no answer yet"
            );
            assert_eq!(b.handle_verdict(verdict).unwrap(), B::Requesting);
            let restored: CancelButton =
                crate::snapshot::restore(&crate::snapshot::save(&b).unwrap()).unwrap();
            assert_eq!(restored, b, "the snapshot keeps that the answer came");
            assert_eq!(
                b.handle_status(next).unwrap(),
                want,
                "{model} {verdict:?} {next}"
            );
            // Decided once: a later status in the window does not reopen a press again.
            if want == B::Available {
                b.press().unwrap();
                assert_eq!(b.handle_status(open).unwrap(), B::Requesting);
            }
        }
    }

    /// Rules C-19: the cancel's answer never came, but the status says cancelled.
    #[test]
    fn a_lost_cancel_answer_then_a_cancelled_status_shows_cancelled() {
        for (model, open, cancelled) in [
            (Model::Task2026, Status::Working, Status::Cancelled),
            (Model::Task2025, Status::Working, Status::Cancelled),
            (Model::Job, Status::Queued, Status::Canceled),
        ] {
            let mut b = CancelButton::new(model);
            b.handle_status(open).unwrap();
            b.press().unwrap();
            assert_eq!(b.state(), B::Requesting);
            assert_eq!(b.handle_status(cancelled).unwrap(), B::Cancelled, "{model}");
        }
    }

    /// Rules C-21: an answer is taken only while a cancel request is out. Never pressed, or
    /// answered already: refused, nothing changes. After a terminal status: taken, no change.
    #[test]
    fn an_answer_nobody_asked_for_is_refused() {
        for model in Model::ALL {
            let open = if model == Model::Job {
                Status::Queued
            } else {
                Status::Working
            };
            for verdict in CancelVerdict::ALL {
                let mut b = CancelButton::new(model);
                b.handle_status(open).unwrap();
                let before = b.clone();
                let e = b.handle_verdict(verdict).unwrap_err();
                assert_eq!(e.code(), "invalid_input", "{model} {verdict:?}");
                assert_eq!(b, before, "a refusal changes nothing");

                b.press().unwrap();
                assert!(b.awaiting_answer());
                b.handle_verdict(verdict).unwrap();
                assert!(!b.awaiting_answer());
                let answered = b.clone();
                assert!(b.handle_verdict(CancelVerdict::Cancelled).is_err());
                assert_eq!(b, answered, "a second answer changes nothing");
            }
        }
        // The answer raced a terminal status: taken, and the button stays as the status left it.
        let mut b = CancelButton::new(Model::Job);
        b.handle_status(Status::Queued).unwrap();
        b.press().unwrap();
        assert_eq!(
            b.handle_status(Status::Completed).unwrap(),
            B::FinishedFirst
        );
        assert_eq!(
            b.handle_verdict(CancelVerdict::Cancelled).unwrap(),
            B::FinishedFirst
        );
    }

    /// A snapshot keeps whether a request is out: from the state where it tells (`requesting`,
    /// no answer yet), written out where it does not (the handle lost, or a terminal status
    /// seen, with the request out; answered and still `requesting`).
    #[test]
    fn a_request_out_survives_a_snapshot() {
        let round_trip = |b: &CancelButton| {
            let text = crate::snapshot::save(b).unwrap();
            let restored: CancelButton = crate::snapshot::restore(&text).unwrap();
            assert_eq!(&restored, b, "{text}");
            text
        };
        let mut b = CancelButton::new(Model::Task2026);
        b.handle_status(Status::Working).unwrap();
        b.press().unwrap();
        assert!(!round_trip(&b).contains("awaiting"), "told by the state");
        let mut lost = b.clone();
        lost.handle_lost();
        assert!(round_trip(&lost).contains("\"awaiting\":true"));
        let mut raced = b.clone();
        raced.handle_status(Status::Completed).unwrap();
        assert!(round_trip(&raced).contains("\"awaiting\":true"));
        b.handle_verdict(CancelVerdict::Rejected).unwrap();
        assert!(!round_trip(&b).contains("awaiting"), "undecided tells it");
    }

    #[test]
    fn failed_request_reopens_the_window() {
        let mut b = CancelButton::new(Model::Job);
        b.handle_status(Status::Queued).unwrap();
        b.press().unwrap();
        assert_eq!(
            b.handle_verdict(CancelVerdict::RequestFailed).unwrap(),
            B::Available
        );
        assert!(!b.pressed());
        b.press().unwrap();
        assert_eq!(
            b.handle_verdict(CancelVerdict::Cancelled).unwrap(),
            B::Cancelled
        );
    }

    #[test]
    fn job_2025_rejected_waits_for_observation() {
        let mut b = CancelButton::new(Model::Task2025);
        b.handle_status(Status::Working).unwrap();
        b.press().unwrap();
        assert_eq!(
            b.handle_verdict(CancelVerdict::Rejected).unwrap(),
            B::Requesting
        );
        assert_eq!(
            b.handle_status(Status::Completed).unwrap(),
            B::FinishedFirst
        );
    }

    #[test]
    fn lost_handle() {
        let mut b = CancelButton::new(Model::Job);
        b.handle_status(Status::Queued).unwrap();
        b.press().unwrap();
        assert_eq!(
            b.handle_verdict(CancelVerdict::NotFound).unwrap(),
            B::Unavailable
        );
        assert!(b.press().is_err());
    }
}
