//! Scenario vectors (`replay`).

use longcall::vector::{self, Vector};
use wasm_bindgen::prelude::*;

use crate::errors::{js, JsResult};
use crate::json::{from_text_or_value, to_js};

/// `replay(vector)`: runs a scenario vector (JSON text or the parsed object) natively inside the
/// module and returns its report `{name, passed, steps: [{index, error, outputs, ok}], record,
/// record_ok}`. Throws `invalid_input` for a file that is not a vector, `invalid_config` for a
/// bad configuration.
#[wasm_bindgen]
pub fn replay(vector: JsValue) -> JsResult<JsValue> {
    let v: Vector = js(from_text_or_value(&vector, "vector"))?;
    to_js(&js(vector::run(&v))?)
}
