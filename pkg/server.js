// The public API of `longcall/server`, shared by its two entry points (server-node.js,
// server-web.js): the core's reference servers (an MCP task registry and a Sume job book) and the
// 2026 and 2025 wire rendering of a task, so a JavaScript server never re-implements the wire. A module
// of its own, so clients never download it. Nothing runs at import time (runtime.js).
import * as glue from './dist/longcall_server.js';
import { bind, isLongcallError } from './runtime.js';

const state = bind(glue, { entry: 'longcall/server', file: 'longcall_server_bg.wasm' });

/** Loads the server module (see `longcall`'s `init`). */
export function init(input) {
  return state.init(input ?? (import.meta.url ? new URL('./dist/longcall_server_bg.wasm', import.meta.url) : null));
}
export const initSync = state.initSync;
export { isLongcallError };

// Headers as pairs (a Fetch `Headers`, a Map) read as the plain object Node's `req.headers` is:
// `JSON.stringify` would make `{}` of them, which reads as a request with no headers at all.
// Anything else (pairs that are not pairs, say) goes as it is, for the module to refuse.
function plainHeaders(headers) {
  if (headers === null || typeof headers !== 'object' || typeof headers[Symbol.iterator] !== 'function') return headers;
  try {
    return Object.fromEntries(headers);
  } catch {
    return headers;
  }
}

/** The request gate (see server.d.ts). */
export function gateRequest(model, method, params, headers) {
  return state.api.gateRequest(model, method, params, plainHeaders(headers));
}

export const {
  TaskRegistry,
  JobBook,
  renderTask2026,
  renderTask2025,
  renderTaskResult2025,
  missingCapability2026,
  gateTaskSupport,
  httpStatusFor,
  readRequest,
  checkParams,
  methodNotServed,
  unknownTool,
  inputResponses,
  inputRequiredResult,
  completeResult,
  discoverResult,
  initializeResult,
  toolsListResult,
  answerText,
} = state.api;
