// The public API of the npm package `longcall`, shared by both entry points (node.js, web.js).
// Functions and classes come from the wasm-bindgen glue in dist/; each entry point instantiates
// the module before any of them can be called. Adding an export: list it here and type it in
// index.d.ts (test/exports.test.mjs fails if the glue, this file and index.d.ts disagree).
import { wasmMemory } from './dist/longcall.js';

export {
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
  // vectors
  replay,
  wasmMemory,
} from './dist/longcall.js';

// MCP wire (bindings/wasm/src/wire.rs): JSON-RPC answers -> tracker inputs, tracker requests ->
// JSON-RPC requests + HTTP headers, both revisions. The `longcall/mcp` adapter is built on these.
export { readAnswer, readNotification, buildRequest, buildCall, capabilityMeta } from './dist/longcall.js';

// One call end to end (bindings/wasm/src/endpoint.rs): bytes in, events out, the core deciding.
// `longcall/mcp` and the cancel page move what it says to send and hand back what arrived.
export { Endpoint } from './dist/longcall.js';

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
  BAD_CODE,
} from './codes.js';
import { makeFast } from './codes.js';

export const { fastOutputs, decodeFast } = makeFast(wasmMemory);
