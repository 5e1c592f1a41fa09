// The public API of `longcall/lite`, shared by its two entry points (lite-node.js, lite-web.js):
// the small build of the same core for pages that need the rules, an honest cancel button and the
// numbers-only tracker, and not the structured surface (JSON inputs, snapshots, servers, codecs,
// vectors) of `longcall`. Under the package's 45 KB gzip budget (scripts/size.mjs checks it).
import { wasmMemory } from './dist/longcall_lite.js';

export { observeCode, cancelWindowCode, CancelButton, Tracker, wasmMemory } from './dist/longcall_lite.js';
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
