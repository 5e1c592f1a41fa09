/**
 * `longcall/lite`: the small build of the longcall core, for pages that need the lifecycle rules,
 * an honest cancel button and the numbers-only tracker (status codes and times in, packed numbers
 * out). Same semantics as `longcall`, compiled without the structured surface (JSON inputs,
 * snapshots, reference servers, wire codecs, vectors). Types are those of `longcall`.
 * @packageDocumentation
 */
import type {
  CancelButtonCore,
  LongcallError,
  WasmSource,
  Model,
  ObservationCode,
  TrackerOutput,
  TrackerConfig,
  TrackerCore,
} from './index.js';

export type {
  Model,
  Status,
  TaskStatus,
  JobStatus,
  StatusOf,
  Observation,
  Transition,
  CancelWindow,
  OutputKind,
  RequestKind,
  ButtonState,
  Outcome,
  StopReason,
  JobErrorCode,
  CancelVerdict,
  ErrorCode,
  Rule,
  ModelCode,
  StatusCode,
  ObservationCode,
  TransitionCode,
  LongcallError,
  WasmSource,
  Output,
  Request,
  TrackerOutput,
  TrackerRequest,
  Camelized,
  CamelCase,
  Violation,
  Level,
  Json,
  TrackerConfig,
  Jitter,
  CancelButtonCore,
  TrackerCore,
} from './index.js';

/** Loads the small module (see `longcall`'s {@link init}); by default `./dist/longcall_lite_bg.wasm`. */
export function init(input?: WasmSource | Promise<WasmSource>): Promise<void>;
/** Instantiates the small module synchronously from its bytes or a compiled module. */
export function initSync(input: ArrayBuffer | ArrayBufferView | WebAssembly.Module): void;
/** True for an error thrown by longcall (an `Error` with a string `code`). */
export function isLongcallError(e: unknown): e is LongcallError;
/** The `setTimeout` delay for a `wake_at` output (see `longcall`'s {@link timerDelay}): never below 0, never above 2^31-1 ms. */
export function timerDelay(at: number, now: number): number;

/** Numbers-only observation check: {@link OBSERVATIONS} index, or 255 for codes it cannot read. Never throws. */
export function observeCode(modelCode: number, fromCode: number, toCode: number): ObservationCode | 255;
/** Numbers-only cancel window: 0 open, 1 started, 2 terminal, 255 for codes it cannot read. Never throws. */
export function cancelWindowCode(modelCode: number, statusCode: number): 0 | 1 | 2 | 255;
/** The {@link JOB_ERROR_CODES} index of a Sume error code; a code longcall does not know (or no string at all) is `other`. Never throws once `init()` has resolved (before, `not_initialized`). */
export function jobErrorCode(code: unknown): number;
/** The module's memory (what {@link fastOutputs} reads). */
export function wasmMemory(): WebAssembly.Memory;
/** The numbers-only outputs (see `longcall`'s `fastOutputs`). */
export function fastOutputs(): Float64Array;
/** Decodes `n` numbers-only outputs of `tracker` into camelCase output objects. */
export function decodeFast(tracker: Tracker, n: number): TrackerOutput[];

/**
 * The honest cancel button of one call.
 * @example
 * const b = new CancelButton('job'); b.handleStatus('queued'); b.press(); // send jobs_cancel now
 * b.handleVerdict('too_late'); b.state // 'too_late'
 */
export class CancelButton<M extends Model = Model> {
  /** A button for a call whose handle is not known yet. @throws {LongcallError} `unknown_model`. */
  constructor(model: M);
}
export interface CancelButton<M extends Model = Model> extends CancelButtonCore<M> {}

/**
 * One watched task or job, numbers-only: every `fast*` call returns the number of outputs it wrote
 * to {@link fastOutputs} (or -1, with the code in `lastError`), ending with `wake_at` or `idle`.
 * Its members are those of `longcall`'s {@link TrackerCore}.
 */
export class Tracker {
  /** A tracker whose handle is not known yet. @throws {LongcallError} `unknown_model`, `malformed`, `invalid_config`. */
  constructor(model: Model, config?: TrackerConfig | null);
}
export interface Tracker extends TrackerCore {}

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
