/**
 * `longcall/vectors`: the core's scenario-vector runner (`replay`) and its code tables
 * (`codeTables`), for conformance tools and tests. A WebAssembly module of its own, so pages
 * that load `longcall` never download it.
 * @packageDocumentation
 */
import type {
  CoreTrackerConfig,
  ErrorCode,
  Input,
  LongcallError,
  Model,
  Output,
  RunRecord,
  WasmSource,
} from './index.js';

/** Loads the vector runner's module (see `longcall`'s `init`); by default `./dist/longcall_vectors_bg.wasm`. */
export function init(input?: WasmSource | Promise<WasmSource>): Promise<void>;
/** Instantiates the vector runner's module synchronously from its bytes or a compiled module. */
export function initSync(input: ArrayBuffer | ArrayBufferView | WebAssembly.Module): void;
/** True for an error thrown by longcall (an `Error` with a string `code`). */
export function isLongcallError(e: unknown): e is LongcallError;

/** A scenario vector (format: src/vector.rs), in the core's snake_case spelling. */
export interface Vector {
  name: string;
  about?: string;
  model: Model;
  config?: CoreTrackerConfig;
  steps: { at: number; input?: Input; timeout?: boolean; error?: ErrorCode; expect: Output[] }[];
  record?: Partial<RunRecord>;
}
/** What {@link replay} reports. */
export interface ReplayReport {
  name: string;
  passed: boolean;
  record: RunRecord;
  record_ok: boolean;
  steps: { index: number; error: ErrorCode | null; outputs: Output[]; ok: boolean }[];
}

/**
 * Runs a scenario vector (JSON text or the parsed object) inside the module: the same core the
 * other entry points run, so a vector's outputs here are the Rust crate's, byte for byte.
 * @throws {LongcallError} `malformed` (not a vector), `too_large` (over 4 Mi UTF-16 units), `invalid_config` (its configuration).
 * @example
 * import { replay } from 'longcall/vectors';
 * const report = replay(readFileSync('tests/vectors/job-cancel-too-late-409.json', 'utf8'));
 * if (!report.passed) console.log(report.steps.filter((s) => !s.ok));
 */
export function replay(vector: string | Vector): ReplayReport;

/**
 * Every code table and name list, straight from the core's types: what the package's `codes.js`
 * (the `MODELS`, `STATUSES`, `ERROR_CODES`, ... every entry exports) and its type unions are
 * generated from, for a tool that checks its own tables against the core. Table names are the
 * constants' names; `ERROR_CODES` here lists the module's own codes, without the JavaScript
 * layer's (`not_initialized`, `freed`, `unbound`).
 * @example
 * import { codeTables } from 'longcall/vectors';
 * codeTables().BUTTON_STATES; // ['unavailable', 'available', 'requesting', 'acknowledged_pending', ...]
 */
export function codeTables(): { [table: string]: string[] };
