/**
 * `longcall/lite`: the small build of the longcall core, for pages that need the lifecycle rules,
 * an honest cancel button and the numbers-only tracker (status codes and times in, packed numbers
 * out). Same semantics as `longcall`, compiled without the structured surface (JSON inputs,
 * snapshots, reference servers, wire codecs, vectors). Types are those of `longcall`.
 * @packageDocumentation
 */
import type {
  ButtonState, CancelVerdict, ErrorCode, Model, ObservationCode, Outcome, Output, Status,
  TrackerConfig,
} from './index.js';

export type * from './index.js';

/** Numbers-only observation check: {@link OBSERVATIONS} index, or 255 for codes it cannot read. Never throws. */
export function observeCode(modelCode: number, fromCode: number, toCode: number): ObservationCode | 255;
/** Numbers-only cancel window: 0 open, 1 started, 2 terminal, 255 for codes it cannot read. Never throws. */
export function cancelWindowCode(modelCode: number, statusCode: number): 0 | 1 | 2 | 255;
/** The module's memory (what {@link fastOutputs} reads). */
export function wasmMemory(): WebAssembly.Memory;
/** The numbers-only outputs (see `longcall`'s `fastOutputs`). */
export function fastOutputs(): Float64Array;
/** Decodes `n` numbers-only outputs of `tracker` into {@link Output} objects. */
export function decodeFast(tracker: Tracker, n: number): Output[];

/**
 * The honest cancel button of one call.
 * @example
 * const b = new CancelButton('job'); b.handleStatus('queued'); b.press(); // send jobs_cancel now
 * b.handleVerdict('too_late'); b.state // 'too_late'
 */
export class CancelButton {
  /** A button for a call whose handle is not known yet. @throws {LongcallError} `unknown_model`. */
  constructor(model: Model);
  /** What the button shows now. */
  readonly state: ButtonState;
  /** Whether a press went on the wire. */
  readonly pressed: boolean;
  /** An observed status; returns the new state. @throws {LongcallError} for a status of another model. */
  handleStatus(status: Status): ButtonState;
  /** Returns when the cancel must be sent now. @throws {LongcallError} `cancel_refused` (nothing goes on the wire). */
  press(): void;
  /** The cancel answer's verdict; returns the new state. @throws {LongcallError} `invalid_input`. */
  handleVerdict(verdict: CancelVerdict): ButtonState;
  /** The handle no longer resolves. */
  handleLost(): ButtonState;
  /** Frees the module memory now (otherwise the garbage collector does it). */
  free(): void;
}

/**
 * One watched task or job, numbers-only: every `fast*` call returns the number of outputs it wrote
 * to {@link fastOutputs} (or -1, with the code in `lastError`), ending with `wake_at` or `idle`.
 */
export class Tracker {
  /** A tracker whose handle is not known yet. @throws {LongcallError} `unknown_model`, `invalid_config`. */
  constructor(model: Model, config?: TrackerConfig | null);
  /** The model. */
  readonly model: Model;
  /** The task or job id, once known. */
  readonly id: string | undefined;
  /** The status held (the first terminal one, once seen). */
  readonly status: Status | undefined;
  /** What the cancel button shows. */
  readonly button: ButtonState;
  /** The verified outcome, once settled. */
  readonly outcome: Outcome | undefined;
  /** True once settled or stopped. */
  readonly isDone: boolean;
  /** When `fastTimeout` has work next (ms), if ever. */
  readonly pollTimeout: number | undefined;
  /** Index of this tracker's output triples in {@link fastOutputs}. */
  readonly fastOffset: number;
  /** The error code of the last `fast*` call that returned -1 (`''` after a success). */
  readonly lastError: ErrorCode | '';
  /** The structured output a triple points to (`ask_user`, `violation`, non-poll `send`). */
  fastDetail(index: number): Output | undefined;
  /** Creating answer. `pollIntervalMs` NaN for none. */
  fastCreated(id: string, now: number, statusCode: number, pollIntervalMs: number): number;
  /** Poll answer. `payload` (tasks): 0 nothing, 1 result, 2 result with isError, 3 JSON-RPC error. */
  fastPolled(now: number, statusCode: number, pollIntervalMs: number, payload: number): number;
  /** Time passed: call at the last `wake_at`. */
  fastTimeout(now: number): number;
  /** Cancel press (-1 with `lastError` `cancel_refused` when refused). */
  fastCancelPressed(now: number): number;
  /** Cancel answer: kind 0 ack, 1 task (a=status), 2 rpc error (a=code), 3 job (a=status), 4 job error (a=HTTP status, b=JobErrorCode index), 5 no answer. */
  fastCancelAnswered(now: number, kind: number, a: number, b: number): number;
  /** `tasks/update` ack. */
  fastUpdateAcked(now: number): number;
  /** Failure: request code, HTTP status (0 transport), Retry-After ms (NaN none). */
  fastRequestFailed(now: number, requestCode: number, httpStatus: number, retryAfterMs: number): number;
  /** Stop watching (the call goes on). */
  fastStop(now: number): number;
  /** Writes outputs still queued after a call that filled the 64-output buffer. */
  fastDrain(): number;
  /** Frees the module memory now (otherwise the garbage collector does it). */
  free(): void;
}

export {
  MODELS, STATUSES, OBSERVATIONS, TRANSITIONS, WINDOWS, OUTPUT_KINDS, REQUEST_KINDS, BUTTON_STATES,
  OUTCOMES, STOP_REASONS, BAD_CODE,
} from './index.js';
