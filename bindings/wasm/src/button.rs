//! The honest cancel button as a JavaScript class (`CancelButton`).

#[allow(unused_imports)]
use crate::prelude::*;

use longcall::cancel;
use wasm_bindgen::prelude::*;

use crate::args;
use crate::errors::{js, JsResult};

/// The cancel button of one call: feed it every status seen and every cancel verdict; `press()`
/// says whether a cancel may go on the wire.
#[wasm_bindgen]
pub struct CancelButton {
    inner: cancel::CancelButton,
}

#[wasm_bindgen]
impl CancelButton {
    /// `new CancelButton(model)`: a button for a call whose handle is not known yet.
    #[wasm_bindgen(constructor)]
    pub fn new(model: JsValue) -> JsResult<CancelButton> {
        Ok(CancelButton {
            inner: cancel::CancelButton::new(js(args::model(&model))?),
        })
    }

    /// What the button shows now, as its code (`BUTTON_STATES` names it: the glue reads it so).
    #[wasm_bindgen(getter)]
    pub fn state(&self) -> u32 {
        self.inner.state().code().into()
    }

    /// Whether a press went on the wire.
    #[wasm_bindgen(getter)]
    pub fn pressed(&self) -> bool {
        self.inner.pressed()
    }

    /// `handleStatus(status)`: an observed status; returns the new state.
    #[wasm_bindgen(js_name = handleStatus)]
    pub fn handle_status(&mut self, status: JsValue) -> JsResult<JsValue> {
        let s = js(args::status(self.inner.model(), &status, "status"))?;
        Ok(JsValue::from_str(js(self.inner.handle_status(s))?.as_str()))
    }

    /// `press()`: returns normally when the cancel must be sent now; throws `cancel_refused`
    /// otherwise (nothing goes on the wire).
    pub fn press(&mut self) -> JsResult<()> {
        js(self.inner.press())
    }

    /// `handleVerdict(verdict)`: the cancel answer's verdict (from `classifyCancelAnswer`);
    /// returns the new state. Throws `invalid_input` when no cancel is out (not pressed, or
    /// answered already): an answer to a cancel the button did not send changes nothing.
    #[wasm_bindgen(js_name = handleVerdict)]
    pub fn handle_verdict(&mut self, verdict: JsValue) -> JsResult<JsValue> {
        let v = js(args::verdict(&verdict))?;
        Ok(JsValue::from_str(
            js(self.inner.handle_verdict(v))?.as_str(),
        ))
    }

    /// `handleJobAnswer(httpStatus, statusOrCode)`: a Sume `jobs_cancel` answer as read off the
    /// HTTP response (2xx with the job's status, or `undefined` when its body names none; or
    /// the error status with `error.code`, an unknown or missing code being `other`); returns
    /// the new state. Throws `invalid_input` when no cancel is out, as `handleVerdict` does, and
    /// `wrong_model` on a task's button, whose cancel has no such answer.
    #[wasm_bindgen(js_name = handleJobAnswer)]
    pub fn handle_job_answer(
        &mut self,
        http_status: f64,
        status_or_code: JsValue,
    ) -> JsResult<JsValue> {
        // A job's answer on a task's button is the host's slip, not the server's (C-5 reads a
        // wire answer of the other model that way): refused before the press's answer is used.
        let model = self.inner.model();
        if model != longcall::Model::Job {
            js(Err(longcall::Error::WrongModel {
                expected: longcall::Model::Job,
                got: model,
            }))?;
        }
        let answer = js(crate::tables::job_cancel_answer(
            http_status,
            &status_or_code,
        ))?;
        let verdict = cancel::classify_answer(self.inner.model(), answer);
        Ok(JsValue::from_str(
            js(self.inner.handle_verdict(verdict))?.as_str(),
        ))
    }

    /// `handleLost()`: the handle no longer resolves.
    #[wasm_bindgen(js_name = handleLost)]
    pub fn handle_lost(&mut self) -> JsValue {
        JsValue::from_str(self.inner.handle_lost().as_str())
    }
}

/// Persistence, in the full build only: restoring reads JSON.
#[cfg(feature = "full")]
#[wasm_bindgen]
impl CancelButton {
    /// `toJSON()`: the state as a plain object.
    #[wasm_bindgen(js_name = toJSON)]
    pub fn to_json(&self) -> JsResult<JsValue> {
        crate::json::to_js(&self.inner)
    }

    /// `snapshot()`: the versioned snapshot text.
    pub fn snapshot(&self) -> JsResult<String> {
        js(longcall::snapshot::save(&self.inner))
    }

    /// `CancelButton.restore(text)`: a button from a snapshot.
    pub fn restore(text: JsValue) -> JsResult<CancelButton> {
        let text = js(crate::json::bounded_string(&text, "snapshot"))?;
        Ok(CancelButton {
            inner: js(longcall::snapshot::restore(&text))?,
        })
    }
}
