// Public types of the npm package `longcall` (hand-written; both entry points share them).
// Every function throws a `LongcallError` (a plain `Error` with a stable `code`) on bad input,
// except the numbers-only `*Code` functions, which return `BAD_CODE` (255) instead.

/** Which lifecycle a call follows: MCP tasks (2026-07-28 extension, 2025-11-25 experimental) or Sume-style paid jobs. */
export type Model = 'task-2026' | 'task-2025' | 'job';

/** Statuses an MCP task (either revision) can report. Note `cancelled` (double l). */
export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** Statuses a paid job can report. Note `canceled` (single l); `running` is `processing` by another name. */
export type JobStatus = 'queued' | 'processing' | 'running' | 'completed' | 'failed' | 'canceled' | 'expired';

/** Every wire status spelling, of any model. */
export type Status = TaskStatus | JobStatus;

/** The statuses model `M` speaks. */
export type StatusOf<M extends Model> = M extends 'job' ? JobStatus : M extends 'task-2026' | 'task-2025' ? TaskStatus : Status;

/**
 * Whether the server may really move a call from one status to another:
 * `allowed` (an edge of the table), `repeat` (same status or phase), `forbidden` (no edge),
 * `from_terminal` (nothing leaves a terminal status).
 */
export type Transition = 'allowed' | 'repeat' | 'forbidden' | 'from_terminal';

/**
 * Whether seeing `from` then `to` in two polls is consistent: `advance` (a direct transition),
 * `repeat`, `skipped` (consistent, statuses were missed), `regression` (no path back),
 * `terminal_conflict` (a different status after a terminal one; keep the first).
 */
export type Observation = 'advance' | 'repeat' | 'skipped' | 'regression' | 'terminal_conflict';

/** Numeric model codes: index into {@link MODELS}. */
export type ModelCode = 0 | 1 | 2;
/** Numeric status codes: index into {@link STATUSES}. */
export type StatusCode = 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9;
/** Numeric observation codes: index into {@link OBSERVATIONS}. */
export type ObservationCode = 0 | 1 | 2 | 3 | 4;
/** Numeric transition codes: index into {@link TRANSITIONS}. */
export type TransitionCode = 0 | 1 | 2 | 3;

/** Stable machine-readable error codes (the `code` of a thrown {@link LongcallError}). */
export type ErrorCode =
  | 'unknown_model' | 'unknown_status' | 'status_not_in_model' | 'invalid_config' | 'invalid_input'
  | 'wrong_model' | 'cancel_refused' | 'malformed' | 'too_large' | 'too_deep'
  | 'snapshot_version' | 'snapshot_invalid';

/** What every export throws on bad input: a plain `Error` with a stable `code`; `message` is for people. */
export interface LongcallError extends Error {
  /** Stable machine-readable code, e.g. `"unknown_status"`. */
  code: ErrorCode;
}

/**
 * Reads a wire status for a model and returns its exact spelling.
 * @throws {LongcallError} `unknown_model`, `unknown_status` (never read as "pending"),
 *   `status_not_in_model` (`canceled` for a task, `working` for a job), `invalid_input` (not a string).
 * @example parseStatus('job', 'queued') // 'queued'
 */
export function parseStatus<M extends Model>(model: M, raw: string): StatusOf<M>;

/**
 * May the server really move a call of `model` from `from` to `to`?
 * @throws {LongcallError} on an unknown model or a status the model does not speak.
 * @example transition('job', 'processing', 'canceled') // 'forbidden'
 */
export function transition<M extends Model>(model: M, from: StatusOf<M>, to: StatusOf<M>): Transition;

/**
 * Is seeing `from` and then `to` in two polls consistent with `model`?
 * @throws {LongcallError} on an unknown model or a status the model does not speak.
 * @example observe('job', 'queued', 'completed') // 'skipped'
 */
export function observe<M extends Model>(model: M, from: StatusOf<M>, to: StatusOf<M>): Observation;

/**
 * Numbers-only {@link observe} for per-event use: codes in ({@link MODELS}, {@link STATUSES}),
 * an {@link OBSERVATIONS} code out. Never throws and never allocates: any code that is not a
 * model, or a status of that model (NaN, negative, fractional, huge), gives `BAD_CODE` (255).
 * @example OBSERVATIONS[observeCode(2, 5, 2)] // 'skipped' (job, queued -> completed)
 */
export function observeCode(modelCode: number, fromCode: number, toCode: number): ObservationCode | 255;

/**
 * The wire statuses `model` speaks, in table order.
 * @throws {LongcallError} `unknown_model` or `invalid_input`.
 */
export function statuses<M extends Model>(model: M): StatusOf<M>[];

/**
 * The transition table of `model` as a plain object: each status maps to the statuses the server
 * may move it to (terminal statuses map to `[]`), in table order.
 * @throws {LongcallError} `unknown_model` or `invalid_input`.
 * @example transitionTable('job').processing // ['completed', 'failed', 'expired']
 */
export function transitionTable<M extends Model>(model: M): Record<StatusOf<M>, StatusOf<M>[]>;

/** Models by numeric code. */
export const MODELS: readonly ['task-2026', 'task-2025', 'job'];
/** Statuses by numeric code. */
export const STATUSES: readonly ['working', 'input_required', 'completed', 'failed', 'cancelled',
  'queued', 'processing', 'running', 'canceled', 'expired'];
/** Observation verdicts by code (what {@link observeCode} returns). */
export const OBSERVATIONS: readonly ['advance', 'repeat', 'skipped', 'regression', 'terminal_conflict'];
/** Transition verdicts by code. */
export const TRANSITIONS: readonly ['allowed', 'repeat', 'forbidden', 'from_terminal'];
/** What the numbers-only exports return for input they cannot read. */
export const BAD_CODE: 255;
