// The public API of the npm package `longcall`, shared by both entry points (node.js, web.js).
// Functions come from the wasm-bindgen glue in dist/; each entry point instantiates the module
// before any of them can be called. Adding an export: list it here and type it in index.d.ts
// (test/exports.test.mjs fails if the glue, this file and index.d.ts disagree).
export {
  parseStatus,
  transition,
  observe,
  observeCode,
  statuses,
  transitionTable,
} from './dist/longcall.js';

/** Models by numeric code (the `modelCode` of the numbers-only exports). */
export const MODELS = Object.freeze(['task-2026', 'task-2025', 'job']);

/** Statuses by numeric code (the `fromCode`/`toCode` of the numbers-only exports). */
export const STATUSES = Object.freeze(['working', 'input_required', 'completed', 'failed', 'cancelled',
  'queued', 'processing', 'running', 'canceled', 'expired']);

/** Observation verdicts by the code `observeCode` returns. */
export const OBSERVATIONS = Object.freeze(['advance', 'repeat', 'skipped', 'regression', 'terminal_conflict']);

/** Transition verdicts by numeric code. */
export const TRANSITIONS = Object.freeze(['allowed', 'repeat', 'forbidden', 'from_terminal']);

/** What the numbers-only exports return for input they cannot read. */
export const BAD_CODE = 255;
