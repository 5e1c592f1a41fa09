//! Lifecycle rules: status parsing, transition and observation verdicts, the tables.
//!
//! Structured exports take strings (any JavaScript value, checked) and return verdict strings;
//! [`observe_code`] is the numbers-only hot path.

#[allow(unused_imports)]
use crate::prelude::*;

use longcall::lifecycle::{self, Observation, Transition};
use longcall::{Model, Status};
#[cfg(feature = "full")]
use serde::ser::{Serialize, Serializer};
use wasm_bindgen::prelude::*;

use crate::args;
#[cfg(feature = "full")]
use crate::errors::{js, JsResult};

/// The wire spelling of a transition verdict (the serde spelling; a test keeps them equal).
pub const fn transition_str(t: Transition) -> &'static str {
    match t {
        Transition::Allowed => "allowed",
        Transition::Repeat => "repeat",
        Transition::Forbidden => "forbidden",
        Transition::FromTerminal => "from_terminal",
    }
}

/// The wire spelling of an observation verdict (the serde spelling; a test keeps them equal).
pub const fn observation_str(o: Observation) -> &'static str {
    match o {
        Observation::Advance => "advance",
        Observation::Repeat => "repeat",
        Observation::Skipped => "skipped",
        Observation::Regression => "regression",
        Observation::TerminalConflict => "terminal_conflict",
    }
}

/// `parseStatus(model, raw)`: the status as the model spells it; throws `unknown_model`,
/// `unknown_status`, `status_not_in_model` or `invalid_input`.
#[cfg(feature = "full")]
#[wasm_bindgen(js_name = parseStatus)]
pub fn parse_status(model: JsValue, raw: JsValue) -> JsResult<JsValue> {
    js((|| {
        let model = args::model(&model)?;
        Ok(JsValue::from_str(
            args::status(model, &raw, "raw")?.as_str(),
        ))
    })())
}

/// `transition(model, from, to)`: may the server really move a call from `from` to `to`?
/// Returns `"allowed" | "repeat" | "forbidden" | "from_terminal"`.
#[cfg(feature = "full")]
#[wasm_bindgen]
pub fn transition(model: JsValue, from: JsValue, to: JsValue) -> JsResult<JsValue> {
    js((|| {
        let model = args::model(&model)?;
        let from = args::status(model, &from, "from")?;
        let to = args::status(model, &to, "to")?;
        Ok(JsValue::from_str(transition_str(lifecycle::transition(
            model, from, to,
        )?)))
    })())
}

/// `observe(model, from, to)`: is seeing `from` then `to` in two polls consistent? Returns
/// `"advance" | "repeat" | "skipped" | "regression" | "terminal_conflict"`.
#[cfg(feature = "full")]
#[wasm_bindgen]
pub fn observe(model: JsValue, from: JsValue, to: JsValue) -> JsResult<JsValue> {
    js((|| {
        let model = args::model(&model)?;
        let from = args::status(model, &from, "from")?;
        let to = args::status(model, &to, "to")?;
        Ok(JsValue::from_str(observation_str(lifecycle::observe(
            model, from, to,
        )?)))
    })())
}

/// `observeCode(modelCode, fromCode, toCode)`: the numbers-only [`observe`]. Returns the
/// [`Observation`] code (0 to 4), or [`args::BAD`] (255) for any code that is not a model or a
/// status of that model (NaN, negative, fractional, huge). Never throws, never allocates.
#[wasm_bindgen(js_name = observeCode)]
pub fn observe_code(model_code: f64, from_code: f64, to_code: f64) -> u8 {
    observe_codes(model_code, from_code, to_code).unwrap_or(args::BAD)
}

/// The pure part of [`observe_code`].
pub fn observe_codes(model: f64, from: f64, to: f64) -> Option<u8> {
    let model = Model::from_code(args::code(model)?)?;
    let from = Status::from_code(args::code(from)?)?;
    let to = Status::from_code(args::code(to)?)?;
    lifecycle::observe(model, from, to)
        .ok()
        .map(Observation::code)
}

/// `statuses(model)`: the wire statuses `model` speaks, in table order.
#[cfg(feature = "full")]
#[wasm_bindgen]
pub fn statuses(model: JsValue) -> JsResult<js_sys::Array> {
    let model = js(args::model(&model))?;
    Ok(Status::of(model)
        .iter()
        .map(|s| JsValue::from_str(s.as_str()))
        .collect())
}

/// `transitionTable(model)`: `{ [from]: to[] }` in table order, as a plain JavaScript object.
#[cfg(feature = "full")]
#[wasm_bindgen(js_name = transitionTable)]
pub fn transition_table(model: JsValue) -> JsResult<JsValue> {
    let model = js(args::model(&model))?;
    crate::json::to_js(&TableView(lifecycle::table(model)))
}

/// `cancelWindowCode(modelCode, statusCode)`: numbers-only `cancelWindow`: 0 open,
/// 1 started, 2 terminal, 255 for codes it cannot read. Never throws.
#[wasm_bindgen(js_name = cancelWindowCode)]
pub fn cancel_window_code(model_code: f64, status_code: f64) -> u8 {
    (|| {
        let model = Model::from_code(args::code(model_code)?)?;
        let status = Status::from_code(args::code(status_code)?)?;
        longcall::cancel::window(model, status)
            .ok()
            .map(longcall::cancel::Window::code)
    })()
    .unwrap_or(args::BAD)
}

#[cfg(feature = "full")]
/// A transition table serialized as a map from status to the statuses it may move to.
pub struct TableView(pub &'static [lifecycle::Row]);

#[cfg(feature = "full")]
impl Serialize for TableView {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.0.iter().map(|(from, tos)| (from, *tos)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdict_strings_match_serde() {
        use Observation as O;
        use Transition as T;
        for t in [T::Allowed, T::Repeat, T::Forbidden, T::FromTerminal] {
            assert_eq!(serde_json::to_value(t).unwrap(), transition_str(t));
        }
        for o in [
            O::Advance,
            O::Repeat,
            O::Skipped,
            O::Regression,
            O::TerminalConflict,
        ] {
            assert_eq!(serde_json::to_value(o).unwrap(), observation_str(o));
        }
    }

    #[test]
    fn observe_codes_agree_with_observe_and_reject_junk() {
        for model in Model::ALL {
            for from in Status::ALL {
                for to in Status::ALL {
                    let want = lifecycle::observe(model, from, to)
                        .ok()
                        .map(Observation::code);
                    let got =
                        observe_codes(model.code().into(), from.code().into(), to.code().into());
                    assert_eq!(got, want, "{model} {from} {to}");
                }
            }
        }
        assert_eq!(observe_code(f64::NAN, 5.0, 2.0), args::BAD);
        assert_eq!(observe_code(2.0, -1.0, 2.0), args::BAD);
        assert_eq!(observe_code(2.0, 5.0, 1e308), args::BAD);
        assert_eq!(observe_code(3.0, 5.0, 2.0), args::BAD);
        assert_eq!(observe_code(2.0, 5.0, 2.0), Observation::Skipped.code());
    }

    #[test]
    fn table_view_is_an_object_in_table_order() {
        let json = serde_json::to_string(&TableView(lifecycle::table(Model::Job))).unwrap();
        assert!(
            json.starts_with(
                r#"{"queued":["processing","running","canceled","failed","expired"],"processing":"#
            ),
            "{json}"
        );
    }
}
