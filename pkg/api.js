// The public API of the npm package `longcall`, shared by both entry points (node.js, web.js).
// Every function and class of the wasm-bindgen glue in dist/ goes through runtime.js's guard
// (coded errors, lifetimes, loading); nothing here runs the module at import time. Adding an
// export: list it here and type it in index.d.ts (test/exports.test.mjs fails if the glue, this
// file and index.d.ts disagree).
import * as glue from './dist/longcall.js';
import { bind, isLongcallError, timerDelay } from './runtime.js';
import { makeFast } from './fast.js';
import { FAST_METHODS, NUMERIC_FUNCTIONS, BUTTON_NAMES, CALL_NAMES, TEXT_ARGUMENTS } from './numeric.js';
import { routeStructured } from './structured.js';
import { callToolArgs, configAt } from './config.js';
import { seeded } from './options.js';

// Before bind(), which guards the methods it installs (freed, unbound, coded errors).
routeStructured(glue.Tracker, () => fastOutputs());
const state = bind(glue, {
  entry: 'longcall',
  file: 'longcall_bg.wasm',
  numeric: NUMERIC_FUNCTIONS,
  numericMethods: { Tracker: FAST_METHODS },
  textArguments: { Tracker: TEXT_ARGUMENTS },
  names: { Tracker: CALL_NAMES, Endpoint: CALL_NAMES, CancelButton: BUTTON_NAMES },
  prepare: {
    Tracker: { new: configAt(1) },
    // A wave's configuration is read in the module, not by config.js: its seed is drawn here.
    Wave: {
      new: (args) => {
        args[0] = seeded(args[0]);
      },
    },
    Endpoint: { callTool: callToolArgs, submitJob: configAt(1), watch: configAt(2), watchAgain: configAt(0) },
  },
});
const a = state.api;

/**
 * Loads the module: `input` is where the .wasm is (a URL or string), a `Response` or a promise of
 * one, its bytes, or a compiled `WebAssembly.Module`; by default the file next to this module.
 * Resolves once every export can be called; calling it again returns the same promise.
 */
export function init(input) {
  return state.init(input ?? (import.meta.url ? new URL('./dist/longcall_bg.wasm', import.meta.url) : null));
}
/** Instantiates the module synchronously from its bytes or a compiled `WebAssembly.Module`. */
export const initSync = state.initSync;
export { isLongcallError, timerDelay };

export const {
  // lifecycle
  parseStatus,
  transition,
  observe,
  observeCode,
  statuses,
  transitionTable,
  seed,
  // outcomes, cancel, admission, batch, poll, mapping, ownership
  classifyOutcome,
  needsResultFetch,
  cancelWindow,
  cancelWindowCode,
  classifyCancelAnswer,
  classifySubmit,
  mcpCreateLost,
  planWaits,
  pollPlan,
  taskStatusFor,
  jobStatusesFor,
  mappingConcepts,
  jobAccess,
  taskAccess,
  errorCodes,
  violationRules,
  // stateful
  CancelButton,
  Tracker,
  Wave,
  jobErrorCode,
  wasmMemory,
  // MCP wire (bindings/wasm/src/wire.rs): JSON-RPC answers -> tracker inputs, tracker requests ->
  // JSON-RPC requests + HTTP headers, both revisions. The `longcall/mcp` adapter is built on these.
  readAnswer,
  readResult,
  readNotification,
  buildRequest,
  buildCall,
  requestMeta,
  httpMessages,
  artifactUrl,
  // One call end to end (bindings/wasm/src/endpoint.rs): bytes in, events out, the core deciding.
  // `longcall/mcp` and the cancel page move what it says to send and hand back what arrived.
  Endpoint,
} = a;

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
  JOB_KINDS,
  JOB_DIALECTS,
  BAD_CODE,
} from './codes.js';

export const { fastOutputs, decodeFast } = makeFast(wasmMemory);
