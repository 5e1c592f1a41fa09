// The public API of `longcall/lite`, shared by its two entry points (lite-node.js, lite-web.js):
// the small build of the same core for pages that need the rules, an honest cancel button and the
// numbers-only tracker, and not the structured surface (JSON inputs, snapshots, servers, codecs,
// vectors) of `longcall`. Nothing runs at import time: call `init()` first (runtime.js).
import * as glue from './dist/longcall_lite.js';
import { bind, isLongcallError, timerDelay } from './runtime.js';
import { makeFast } from './fast.js';
import { FAST_METHODS, NUMERIC_FUNCTIONS, BUTTON_NAMES, CALL_NAMES, TEXT_ARGUMENTS } from './numeric.js';
import { configAt } from './config.js';

const state = bind(glue, {
  entry: 'longcall/lite',
  file: 'longcall_lite_bg.wasm',
  numeric: NUMERIC_FUNCTIONS,
  numericMethods: { Tracker: FAST_METHODS },
  textArguments: { Tracker: TEXT_ARGUMENTS },
  names: { Tracker: CALL_NAMES, CancelButton: BUTTON_NAMES },
  prepare: { Tracker: { new: configAt(1) } },
});

/** Loads the small module (see `longcall`'s `init`). */
export function init(input) {
  return state.init(input ?? (import.meta.url ? new URL('./dist/longcall_lite_bg.wasm', import.meta.url) : null));
}
export const initSync = state.initSync;
export { isLongcallError, timerDelay };

export const { observeCode, cancelWindowCode, jobErrorCode, CancelButton, Tracker, wasmMemory } = state.api;
export {
  MODELS,
  STATUSES,
  OBSERVATIONS,
  TRANSITIONS,
  WINDOWS,
  OUTPUT_KINDS,
  REQUEST_KINDS,
  BUTTON_STATES,
  OUTCOMES,
  STOP_REASONS,
  JOB_ERROR_CODES,
  CANCEL_VERDICTS,
  ERROR_CODES,
  RULES,
  TASK_STATUSES,
  JOB_STATUSES,
  BAD_CODE,
} from './codes.js';

export const { fastOutputs, decodeFast } = makeFast(wasmMemory);
